"""Word lists for the entities a Meridian world adds as its corpus grows (Meridian 4): IT systems and
versioned policies beyond the core block's 14 and 20, so a bigger corpus holds more independent topics.

Pure data. A growth system pairs a brand word with a kind (each kind once, so "Meridian's <kind>" names one
system); a growth policy topic has the shape of :data:`hcrbench.synth.world_model.lexicon.POLICY_TOPICS` and its own synonym
set (:data:`GROWTH_SYNONYMS`: the surface forms a policy's documents use one of and a vocabulary-mismatch question
asks with another), forms chosen to share no content word with each other or with the topic's figures.
"""

from __future__ import annotations

# Brand words for growth systems (none is a person's name, a code name, a team word or a core system's word).
SYSTEM_BRANDS = [
    "Cirrus", "Lumen", "Vector", "Onyx", "Prism", "Sierra", "Talon", "Zenith", "Cedar", "Fathom", "Garnet",
    "Helios", "Kepler", "Lodestar", "Nexus", "Opal", "Polaris", "Quasar", "Raven", "Saffron", "Topaz", "Vesper",
    "Wren", "Xenon", "Yarrow", "Zircon", "Argon", "Cascade", "Flint", "Glacier", "Ironwood", "Jasper", "Larkspur",
    "Monsoon", "Obsidian", "Pinnacle", "Redwood", "Sextant", "Trellis", "Umber", "Verdant", "Wayfarer",
]
# (name suffix, kind, vendor, owner team id); kinds differ from every core system's kind and from each other.
GROWTH_SYSTEMS = [
    ("Gateway", "API gateway", "Kong", "T02"),
    ("Flags", "feature flag service", "LaunchDarkly", "T02"),
    ("Pager", "on-call paging service", "PagerDuty", "T06"),
    ("Secrets", "secrets manager", "HashiCorp", "T08"),
    ("Chat", "team chat platform", "Slack", "T07"),
    ("Drive", "file sharing service", "Dropbox", "T07"),
    ("Payroll", "payroll system", "ADP", "T14"),
    ("Payables", "accounts payable automation", "Coupa", "T14"),
    ("Sign", "e-signature service", "DocuSign", "T12"),
    ("Contracts", "contract lifecycle management tool", "Ironclad", "T12"),
    ("Learn", "learning management system", "Cornerstone", "T00"),
    ("Recruit", "applicant tracking system", "Greenhouse", "T01"),
    ("Survey", "employee survey platform", "Culture Amp", "T00"),
    ("Insights", "product analytics service", "Amplitude", "T09"),
    ("Canvas", "design collaboration tool", "Figma", "T10"),
    ("Boards", "work tracking tool", "Atlassian Jira", "T11"),
    ("Roadmap", "roadmap planning tool", "Productboard", "T09"),
    ("Logs", "log search service", "Elastic", "T06"),
    ("Trace", "distributed tracing service", "Honeycomb", "T06"),
    ("Statuspage", "public status page", "Atlassian Statuspage", "T06"),
    ("Scan", "code scanning service", "Snyk", "T08"),
    ("Shield", "endpoint protection agent", "CrowdStrike", "T08"),
    ("Devices", "device management service", "Jamf", "T07"),
    ("Print", "print management service", "PaperCut", "T07"),
    ("Rooms", "meeting room booking system", "Robin", "T07"),
    ("Voice", "telephony platform", "RingCentral", "T07"),
    ("Warehouse", "cloud data warehouse", "Snowflake", "T04"),
    ("Pipelines", "data integration service", "Fivetran", "T04"),
    ("Dashboards", "business intelligence tool", "Tableau", "T04"),
    ("Stream", "message streaming platform", "Confluent", "T02"),
    ("Cache", "in-memory data store", "Redis", "T02"),
    ("Devicelab", "mobile device test lab", "BrowserStack", "T05"),
    ("Deploy", "deployment orchestrator", "Harness", "T06"),
    ("Cloud", "cloud hosting account", "Amazon Web Services", "T06"),
    ("Treasury", "treasury management system", "Kyriba", "T14"),
    ("Tax", "tax calculation engine", "Avalara", "T14"),
    ("Audit", "audit management tool", "AuditBoard", "T13"),
    ("Risk", "governance and risk register", "LogicGate", "T12"),
    ("Intranet", "intranet portal", "Simpplr", "T15"),
    ("Broadcast", "employee newsletter tool", "Staffbase", "T15"),
    ("Fraud", "fraud screening service", "Sift", "T03"),
    ("Cards", "card issuing platform", "Marqeta", "T03"),
]
assert len({k for _, k, _, _ in GROWTH_SYSTEMS}) == len(GROWTH_SYSTEMS) <= len(SYSTEM_BRANDS)
#: The team that owns a growth system, by its kind (a growth system's name depends on the seed, its kind does not).
GROWTH_SYSTEM_OWNERS = {kind: owner for _, kind, _, owner in GROWTH_SYSTEMS}

# Concept -> surface forms for the growth policies (a policy keeps one; hard questions use another).
GROWTH_SYNONYMS = {
    "overtime": ["extra-hours work", "additional shifts", "beyond-contract time"],
    "relocation": ["moving allowance", "transfer assistance", "home-move support"],
    "tuition": ["tuition assistance", "education support", "study sponsorship"],
    "wellness": ["wellness allowance", "wellbeing stipend", "health perks"],
    "probation": ["probation", "starter assessment phase", "first-months review"],
    "notice": ["leaving notice", "resignation lead time", "termination warning"],
    "interview": ["interview rounds", "hiring loop", "candidate assessment"],
    "internship": ["student placement", "trainee scheme", "intern cohort"],
    "volunteering": ["volunteer days", "community service days", "charity time"],
    "sabbatical": ["sabbatical", "career break", "extended time away"],
    "payroll": ["payroll calendar", "salary run", "wage cycle"],
    "mileage": ["mileage", "car use reimbursement", "vehicle allowance"],
    "cards": ["company charge card", "spend card", "business plastic"],
    "mfa": ["multi-factor authentication", "two-step verification", "second sign-in factor"],
    "byod": ["personal devices", "bring your own device", "own-handset use"],
    "wifi": ["guest network", "visitor Wi-Fi", "public wireless"],
    "usb": ["removable media", "USB storage", "portable drives"],
    "adminrights": ["admin rights", "elevated privileges", "superuser permissions"],
    "cleandesk": ["clean desk", "tidy workspace", "clear screen"],
    "software": ["software installation", "app requests", "program approvals"],
    "loaner": ["loaner equipment", "spare kit", "temporary hardware"],
    "testing": ["testing thresholds", "verification suite", "coverage floors"],
    "apideprecation": ["API deprecation", "interface retirement", "endpoint sunset"],
    "dependencies": ["dependency updates", "library upgrades", "package refresh"],
    "slo": ["service level objectives", "reliability targets", "uptime goals"],
    "capacity": ["headroom planning", "resource forecasting", "compute sizing"],
    "gamedays": ["chaos exercises", "failure drills", "resilience rehearsals"],
    "mobilerelease": ["app store submission", "mobile release train", "phone app shipping"],
    "dataquality": ["dataset hygiene", "pipeline validation", "record accuracy checks"],
    "carddata": ["card data handling", "PCI scope", "cardholder information"],
    "pairing": ["pair programming", "mob sessions", "shared coding time"],
    "whistleblowing": ["speak-up reporting", "misconduct disclosure", "wrongdoing alerts"],
    "conflicts": ["outside interests", "personal stakes disclosure", "moonlighting declarations"],
    "antibribery": ["anti-bribery", "corruption prevention", "improper inducements"],
    "privacyimpact": ["privacy impact assessment", "data protection review", "personal data screening"],
    "sanctions": ["sanctions screening", "export controls", "restricted party checks"],
    "auditfindings": ["audit findings", "remediation tracking", "weakness follow-up"],
    "signing": ["signing authority", "approval limits", "spending mandates"],
    "socialmedia": ["social channels", "online commentary", "external posts"],
    "insider": ["insider trading", "share dealing", "blackout periods"],
    "contractreview": ["contract vetting", "agreement sign-off", "legal scrutiny"],
}
# (code prefix, domain, concept, title word, [(parameter phrase, unit, low, high)], owner team index)
GROWTH_POLICY_TOPICS = [
    ("HR-POL", "hr", "overtime", "Policy", [("pay premium on weekdays", "percent", 25, 75),
                                            ("monthly cap", "hours", 10, 40)], 0),
    ("HR-POL", "hr", "relocation", "Policy", [("lump sum for an international move", "USD", 3000, 12000),
                                              ("temporary housing", "weeks", 2, 8)], 0),
    ("HR-POL", "hr", "tuition", "Programme", [("annual cap per employee", "USD", 1000, 6000),
                                              ("months of service before eligibility", "months", 3, 12)], 0),
    ("HR-POL", "hr", "wellness", "Programme", [("annual amount", "USD", 200, 800),
                                               ("claim window after purchase", "days", 30, 90)], 0),
    ("HR-POL", "hr", "probation", "Policy", [("length for new hires", "months", 3, 6),
                                             ("check-ins during the period", "meetings", 2, 6)], 0),
    ("HR-POL", "hr", "notice", "Policy", [("notice for individual contributors", "weeks", 2, 6),
                                          ("notice for people managers", "weeks", 4, 12)], 0),
    ("HR-POL", "hr", "interview", "Guideline", [("maximum rounds", "rounds", 3, 6),
                                                ("days to give candidates feedback", "days", 2, 10)], 1),
    ("HR-POL", "hr", "internship", "Programme", [("monthly stipend", "USD", 1500, 3500),
                                                 ("maximum length", "months", 3, 12)], 1),
    ("HR-POL", "hr", "volunteering", "Policy", [("paid days per year", "days", 1, 5),
                                                ("matched donation cap", "USD", 250, 1500)], 0),
    ("HR-POL", "hr", "sabbatical", "Policy", [("years of service before eligibility", "years", 4, 8),
                                              ("maximum length", "weeks", 4, 12)], 0),
    ("HR-POL", "hr", "payroll", "Procedure", [("cut-off before payday for changes", "days", 3, 10),
                                              ("days to correct an underpayment", "days", 1, 5)], 14),
    ("HR-POL", "hr", "mileage", "Policy", [("rate per mile", "cents", 40, 70),
                                           ("monthly claim limit", "USD", 200, 800)], 14),
    ("HR-POL", "hr", "cards", "Policy", [("single transaction limit", "USD", 500, 5000),
                                         ("days to submit receipts", "days", 7, 30)], 14),
    ("IT-SEC", "it", "mfa", "Standard", [("grace period for new accounts", "days", 1, 14),
                                         ("trusted-device expiry", "days", 7, 90)], 8),
    ("IT-SEC", "it", "byod", "Standard", [("screen-lock timeout", "minutes", 1, 15),
                                          ("hours to report a lost phone", "hours", 1, 24)], 8),
    ("IT-SEC", "it", "wifi", "Standard", [("session length", "hours", 4, 24),
                                          ("bandwidth cap per connection", "Mbps", 5, 50)], 7),
    ("IT-SEC", "it", "usb", "Standard", [("days an exception lasts", "days", 7, 60),
                                         ("approved sticks per team", "items", 1, 10)], 8),
    ("IT-SEC", "it", "adminrights", "Standard", [("maximum length of a temporary grant", "hours", 4, 72),
                                                 ("review frequency for standing grants", "days", 30, 120)], 8),
    ("IT-SEC", "it", "cleandesk", "Standard", [("minutes before an unattended session locks", "minutes", 2, 15),
                                               ("spot checks per quarter", "checks", 1, 6)], 8),
    ("IT-SEC", "it", "software", "Standard", [("days to approve a request", "days", 1, 10),
                                              ("unused licences a team may hold", "licences", 2, 10)], 7),
    ("IT-SEC", "it", "loaner", "Procedure", [("maximum loan length", "weeks", 1, 6),
                                             ("spare units kept per office", "units", 2, 12)], 7),
    ("ENG-STD", "engineering", "testing", "Standard", [("minimum line coverage", "percent", 60, 90),
                                                       ("maximum flaky-test quarantine", "days", 3, 14)], 2),
    ("ENG-STD", "engineering", "apideprecation", "Standard", [("notice before a version is removed", "months", 3, 12),
                                                              ("minimum supported versions", "versions", 1, 3)], 2),
    ("ENG-STD", "engineering", "dependencies", "Standard", [("days to patch a critical vulnerability", "days", 2, 14),
                                                            ("maximum component age", "months", 6, 24)], 2),
    ("ENG-STD", "engineering", "slo", "Standard", [("error budget per quarter", "minutes", 60, 600),
                                                   ("review cadence", "weeks", 2, 8)], 6),
    ("ENG-STD", "engineering", "capacity", "Standard", [("minimum spare compute", "percent", 20, 50),
                                                        ("planning horizon", "months", 3, 12)], 6),
    ("ENG-STD", "engineering", "gamedays", "Standard", [("sessions per quarter", "sessions", 1, 4),
                                                        ("maximum blast radius", "percent of traffic", 1, 10)], 6),
    ("ENG-STD", "engineering", "mobilerelease", "Standard", [("days between release trains", "days", 7, 28),
                                                             ("minimum beta period", "days", 2, 10)], 5),
    ("ENG-STD", "engineering", "dataquality", "Standard", [("maximum late-arriving window", "hours", 1, 24),
                                                           ("freshness alert threshold", "hours", 2, 12)], 4),
    ("ENG-STD", "engineering", "carddata", "Standard", [("days between scope reviews", "days", 30, 180),
                                                        ("quarterly scans required", "scans", 1, 4)], 3),
    ("ENG-STD", "engineering", "pairing", "Guideline", [("recommended hours per week", "hours", 2, 10),
                                                        ("maximum group size", "people", 2, 5)], 2),
    ("CMP-POL", "compliance", "whistleblowing", "Policy", [("days to acknowledge a report", "days", 1, 7),
                                                           ("days to close an investigation", "days", 30, 90)], 12),
    ("CMP-POL", "compliance", "conflicts", "Policy", [("days to declare a new interest", "days", 7, 30),
                                                      ("shareholding that must be declared", "percent", 1, 5)], 12),
    ("CMP-POL", "compliance", "antibribery", "Policy", [("training refresh interval", "months", 12, 24),
                                                        ("third-party screening threshold", "USD", 5000, 25000)], 12),
    ("CMP-POL", "compliance", "privacyimpact", "Procedure", [("days before launch to file", "days", 10, 45),
                                                             ("repeat interval", "months", 12, 36)], 12),
    ("CMP-POL", "compliance", "sanctions", "Policy", [("rescreening interval", "months", 3, 12),
                                                      ("hours to escalate a match", "hours", 4, 48)], 12),
    ("CMP-POL", "compliance", "auditfindings", "Procedure", [("days to agree an action plan", "days", 10, 30),
                                                             ("days to close a high-rated item", "days", 30, 120)], 13),
    ("CMP-POL", "compliance", "signing", "Policy", [("limit for a team lead", "USD", 10000, 50000),
                                                    ("limit for a department head", "USD", 50000, 250000)], 14),
    ("CMP-POL", "compliance", "socialmedia", "Policy", [("hours to take down flagged content", "hours", 1, 24),
                                                        ("approval lead time for company accounts", "days", 1, 5)], 15),
    ("CMP-POL", "compliance", "insider", "Policy", [("days the window closes before results", "days", 14, 45),
                                                    ("pre-clearance validity", "days", 2, 10)], 12),
    ("CMP-POL", "compliance", "contractreview", "Procedure", [("days for a standard review", "days", 2, 10),
                                                              ("contract value needing counsel", "USD", 25000, 100000)],
     12),
]
assert [t[2] for t in GROWTH_POLICY_TOPICS] == list(GROWTH_SYNONYMS)


# ------------------------------------------------------------------------------------------------ project goals
#: Each product's area as a goal names it (no product name: a goal naming the product would name an entity in every
#: question that quotes it).
PRODUCT_AREAS = {"Meridian Ledger": "the accounting suite", "Meridian Pulse": "the analytics dashboards",
                 "Meridian Pay": "the payment gateway", "Meridian Field": "the field-service app",
                 "Meridian Connect": "the partner API", "Meridian Vault": "document storage",
                 "Meridian Insight": "the forecasting add-on", "Meridian Desk": "the support desk"}
#: Goals a growing world's projects take once a product's hand-written goals (lexicon.PRODUCT_GOALS) are all
#: pursued: a feature and an aim (world_rules_year.project_goals_distinct: no two projects share a goal's base).
GOAL_TEMPLATES = ("add {feature} to {area}", "rebuild {feature} in {area}",
                  "make {feature} in {area} generally available", "cut support tickets about {feature} in {area}",
                  "move {feature} in {area} onto the shared platform", "speed up {feature} in {area}",
                  "harden {feature} in {area} for regulated industries", "redesign {feature} in {area} for mobile use")


def growth_goals(product: str, features: list[str]) -> list[str]:
    """The goals (bases, no scope) a growing world's projects for ``product`` may take, in a fixed order."""
    area = PRODUCT_AREAS[product]
    return [t.format(feature=f, area=area) for f in features for t in GOAL_TEMPLATES]
