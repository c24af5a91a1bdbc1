"""Word lists for Meridian: names, teams, code names, systems, products, policy topics and synonym sets.

Pure data. The synonym sets drive vocabulary mismatch: a policy is written with one form of its concept
("annual leave") and a hard query asks with another ("vacation days") that the answering document never uses.
"""

from __future__ import annotations

from hcrbench.synth.world_model.lexicon_growth import GROWTH_SYNONYMS
from hcrbench.synth.world_model.lexicon_names import (  # noqa: F401  (the name pools, read through this module)
    ALL_CODE_NAMES,
    CODE_LANDFORMS,
    CODE_NAMES,
    CODE_QUALIFIERS,
    FIRST_NAMES,
    LAST_NAMES,
    code_name,
)

LOCATIONS = ["Lisbon", "Toronto", "Austin", "Berlin", "Singapore", "Nairobi", "Dublin", "Remote (EU)",
             "Remote (US)", "Bangalore"]

# (team name, department, primary domain)
TEAMS = [
    ("People Operations", "Human Resources", "hr"),
    ("Talent Acquisition", "Human Resources", "hr"),
    ("Platform Engineering", "Engineering", "engineering"),
    ("Payments Engineering", "Engineering", "engineering"),
    ("Data Engineering", "Engineering", "engineering"),
    ("Mobile Apps", "Engineering", "engineering"),
    ("Site Reliability", "Engineering", "it"),
    ("IT Service Desk", "IT", "it"),
    ("Security Operations", "IT", "it"),
    ("Product Management", "Product", "products"),
    ("Design Studio", "Product", "products"),
    ("Program Office", "Operations", "projects"),
    ("Legal and Compliance", "Legal", "compliance"),
    ("Internal Audit", "Legal", "compliance"),
    ("Finance Operations", "Finance", "communications"),
    ("Internal Communications", "Operations", "communications"),
]
# Added to the world as the corpus grows (new teams create new cross-domain connections).
EXTRA_TEAM_WORDS = ["Growth", "Identity", "Analytics", "Billing", "Search", "Integrations", "Observability",
                    "Procurement", "Customer Success", "Localization", "Edge Networking", "Developer Tools"]

# The role titles that fit each team (a role in another team's list would not be believed: no controllers in
# Internal Communications, no communications managers in Finance Operations). Team leads are "<team> Lead";
# department heads carry their department's title.
TEAM_ROLES = {
    "People Operations": ["HR Business Partner", "People Operations Specialist", "Compensation Analyst",
                          "HR Generalist"],
    "Talent Acquisition": ["Recruiter", "Talent Sourcer", "Recruiting Coordinator"],
    "Platform Engineering": ["Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager"],
    "Payments Engineering": ["Software Engineer", "Senior Software Engineer", "QA Engineer", "Engineering Manager"],
    "Data Engineering": ["Data Engineer", "Senior Data Engineer", "Analytics Engineer"],
    "Mobile Apps": ["Mobile Engineer", "Senior Software Engineer", "QA Engineer"],
    "Site Reliability": ["Site Reliability Engineer", "Senior Site Reliability Engineer", "Platform Operations Engineer"],
    "IT Service Desk": ["IT Support Engineer", "Service Desk Analyst", "Systems Administrator"],
    "Security Operations": ["Security Analyst", "Security Engineer", "Identity Administrator"],
    "Product Management": ["Product Manager", "Senior Product Manager", "Product Owner"],
    "Design Studio": ["Product Designer", "Senior Product Designer", "UX Researcher"],
    "Program Office": ["Program Manager", "Project Coordinator", "Delivery Manager"],
    "Legal and Compliance": ["Compliance Officer", "Privacy Counsel", "Legal Counsel"],
    "Internal Audit": ["Internal Auditor", "Risk Analyst", "Audit Manager"],
    "Finance Operations": ["Financial Analyst", "Controller", "Accountant", "Payroll Specialist"],
    "Internal Communications": ["Communications Manager", "Content Strategist", "Internal Communications Specialist"],
}
# The line manager of each team: some members report to this person (who reports to the team lead) rather than to
# the lead, so a team page does not tell whom a member reports to. Each title is also one of the team's roles.
LINE_MANAGER_ROLE = {
    "People Operations": "People Operations Manager", "Talent Acquisition": "Recruiting Manager",
    "Platform Engineering": "Engineering Manager", "Payments Engineering": "Engineering Manager",
    "Data Engineering": "Data Engineering Manager", "Mobile Apps": "Mobile Engineering Manager",
    "Site Reliability": "Site Reliability Manager", "IT Service Desk": "Service Desk Manager",
    "Security Operations": "Security Operations Manager", "Product Management": "Group Product Manager",
    "Design Studio": "Design Manager", "Program Office": "Delivery Manager",
    "Legal and Compliance": "Compliance Manager", "Internal Audit": "Audit Manager",
    "Finance Operations": "Controller", "Internal Communications": "Communications Manager",
}
for _team, _role in LINE_MANAGER_ROLE.items():
    if _role not in TEAM_ROLES[_team]:
        TEAM_ROLES[_team].append(_role)
# Each team's promotion ladder: a role and the role below it (a promotion moves a person one step up).
PROMOTIONS = {
    "People Operations": {"HR Generalist": "People Operations Specialist", "HR Business Partner": "HR Generalist"},
    "Talent Acquisition": {"Recruiter": "Recruiting Coordinator"},
    "Platform Engineering": {"Senior Software Engineer": "Software Engineer", "Staff Engineer": "Senior Software Engineer"},
    "Payments Engineering": {"Senior Software Engineer": "Software Engineer"},
    "Data Engineering": {"Senior Data Engineer": "Data Engineer"},
    "Mobile Apps": {"Senior Software Engineer": "Mobile Engineer"},
    "Site Reliability": {"Site Reliability Engineer": "Platform Operations Engineer",
                         "Senior Site Reliability Engineer": "Site Reliability Engineer"},
    "IT Service Desk": {"IT Support Engineer": "Service Desk Analyst", "Systems Administrator": "IT Support Engineer"},
    "Security Operations": {"Security Engineer": "Security Analyst"},
    "Product Management": {"Product Manager": "Product Owner", "Senior Product Manager": "Product Manager"},
    "Design Studio": {"Senior Product Designer": "Product Designer"},
    "Program Office": {"Program Manager": "Project Coordinator"},
    "Legal and Compliance": {"Legal Counsel": "Compliance Officer"},
    "Internal Audit": {"Risk Analyst": "Internal Auditor"},
    "Finance Operations": {"Financial Analyst": "Accountant"},
    "Internal Communications": {"Internal Communications Specialist": "Content Strategist"},
}
HEAD_TITLES = {"Human Resources": "Head of People", "Engineering": "Director of Engineering", "IT": "Head of IT",
               "Product": "VP Product", "Operations": "Head of Operations", "Legal": "General Counsel",
               "Finance": "Head of Finance"}

# What a project can aim to do, by the product it delivers into: each project draws its own (goal, scope) pair,
# so no two projects share a goal and every goal is about its product's area (PRODUCT_AREA words).
PRODUCT_GOALS = {
    "Meridian Ledger": ["migrate the invoicing ledger to an event-sourced platform",
                        "automate the month-end close for accounting customers",
                        "add multi-entity consolidation to the accounting suite",
                        "rebuild invoice approval workflows", "speed up ledger reconciliation",
                        "introduce usage-based invoicing", "add e-invoicing for EU tax authorities to the ledger",
                        "support recurring invoices with proration", "build a self-service accounting data export",
                        "replace the ledger's batch posting with real-time posting",
                        "add revenue recognition schedules to the accounting suite",
                        "cut invoice generation time for large accounts",
                        "add fixed-asset depreciation to the ledger",
                        "let accounting customers match bank statements automatically",
                        "add audit-ready approval trails to invoices"],
    "Meridian Pulse": ["rebuild the customer analytics dashboards on streaming data",
                       "add cohort analysis to the analytics dashboard",
                       "cut dashboard load times below two seconds",
                       "consolidate the regional analytics warehouses into one",
                       "introduce usage-based pricing for the analytics tier",
                       "add alerting on customer churn signals to the dashboard",
                       "let customers build their own dashboard widgets",
                       "add funnel reports to customer analytics", "embed analytics dashboards in partner portals",
                       "add natural-language questions to the analytics dashboard",
                       "ship scheduled analytics e-mails to account owners",
                       "add a mobile view of the customer dashboard",
                       "track feature adoption in the analytics product",
                       "add retention curves to churn analytics", "open the analytics dashboard to read-only guests"],
    "Meridian Pay": ["add fraud scoring to card payments", "cut the median checkout latency below 300 milliseconds",
                     "support instant bank-transfer payments", "replace the legacy payment settlement jobs",
                     "add local payment methods to the checkout", "automate chargeback handling for card payments",
                     "add saved cards to the checkout", "support recurring card payments for subscriptions",
                     "add 3-D Secure 2 to card payments", "reconcile payment payouts daily for merchants",
                     "add multi-currency settlement to the payment gateway",
                     "offer buy-now-pay-later at checkout", "cut card payment decline rates",
                     "add refunds through the merchant payment portal",
                     "move payment tokenisation to a certified vault"],
    "Meridian Field": ["ship offline mode for the field-service app", "add route planning for field technicians",
                       "rebuild job scheduling in the field-service app",
                       "launch self-service account recovery in the field-service app",
                       "add photo capture to technician job reports", "cut the field app's battery drain",
                       "add parts inventory lookup for field technicians",
                       "let customers track the technician's arrival in the field app",
                       "add digital signatures to field job sign-off",
                       "support tablets in the field-service app",
                       "add safety checklists for field technicians", "translate the field app into Spanish",
                       "add time sheets for field technicians", "sync field work orders with the CRM",
                       "add barcode scanning of equipment in the field app"],
    "Meridian Connect": ["rebuild the partner reporting API", "add webhooks for partner integrations",
                         "replace the partner onboarding flow for the integration API",
                         "introduce rate-limit tiers on the partner API",
                         "publish a versioned partner API", "standardise partner API authentication",
                         "add a sandbox environment for partner integration testing",
                         "publish SDKs for the partner API", "add bulk endpoints to the partner API",
                         "build a partner API usage dashboard", "add OAuth scopes for partner integrations",
                         "move partner integrations to event streaming",
                         "add GraphQL access to the partner API",
                         "certify partner integrations before go-live",
                         "add retry and replay for failed partner API calls"],
    "Meridian Vault": ["add legal-hold controls to document storage",
                       "migrate archived documents to cheaper storage tiers",
                       "automate retention schedules for stored documents",
                       "add full-text search to document storage",
                       "encrypt every stored document with customer-held keys",
                       "retire the on-premise document servers",
                       "add version history to stored documents", "add e-signature to documents in storage",
                       "scan uploaded documents for malware before storage",
                       "add document sharing links with expiry",
                       "add OCR to scanned documents in storage",
                       "support regional data residency for document storage",
                       "add bulk document import from network drives",
                       "add retention reports for compliance teams",
                       "deduplicate documents in storage"],
    "Meridian Insight": ["add scenario planning to the forecasting add-on",
                         "improve cash-flow forecast accuracy", "launch rolling forecasts for finance teams",
                         "rebuild the forecasting models on the new data platform",
                         "add budget-versus-actual forecasting views",
                         "localise forecasting for the Japanese market",
                         "add headcount forecasting to the add-on",
                         "let finance teams import forecast drivers from spreadsheets",
                         "add seasonality detection to revenue forecasts",
                         "explain forecast changes to finance users",
                         "add forecast approval workflows", "forecast currency exposure for treasury teams",
                         "add what-if sliders to the forecasting views",
                         "forecast subscription renewals from contract data",
                         "cut the forecast refresh time to minutes"],
    "Meridian Desk": ["add SLA timers to support tickets", "launch a self-service help centre for support customers",
                      "route support tickets by skill", "replace the legacy customer support inbox",
                      "add satisfaction surveys to closed support tickets",
                      "consolidate the support ticketing queues",
                      "add live chat to the support tool", "suggest help articles while a ticket is written",
                      "merge duplicate support tickets automatically",
                      "add a phone channel to support ticketing",
                      "give support agents a customer history panel",
                      "report support ticket backlog by team",
                      "add macros for common support replies",
                      "escalate overdue support tickets to managers",
                      "translate support tickets for non-English customers"],
}
GOAL_SCOPES = ["", " for enterprise customers", " in the EMEA region", " for small businesses",
               " in North America", " in the APAC region", " for public-sector customers", " for new sign-ups",
               " across all regions", " in Latin America"]
# Words that place a goal in its product's area (a goal names at least one of its product's words).
PRODUCT_AREA = {
    "Meridian Ledger": ["invoic", "ledger", "accounting", "month-end"],
    "Meridian Pulse": ["analytics", "dashboard", "cohort", "churn"],
    "Meridian Pay": ["payment", "checkout", "card", "chargeback"],
    "Meridian Field": ["field", "technician"],
    "Meridian Connect": ["partner", "integration", "API"],
    "Meridian Vault": ["document", "storage", "retention"],
    "Meridian Insight": ["forecast"],
    "Meridian Desk": ["support", "ticket"],
}
STATUSES = ["on track", "at risk", "delayed", "on hold", "completed"]
QUARTERS = ["2024-Q1", "2024-Q2", "2024-Q3"]
QUARTER_END = {"2024-Q1": "31 March 2024", "2024-Q2": "30 June 2024", "2024-Q3": "30 September 2024"}
QUARTER_START_ISO = {"2024-Q1": "2024-01-01", "2024-Q2": "2024-04-01", "2024-Q3": "2024-07-01"}

PRODUCTS = [
    ("Meridian Ledger", "accounting and invoicing suite for mid-market finance teams"),
    ("Meridian Pulse", "customer analytics dashboard"),
    ("Meridian Pay", "card and bank-transfer payment gateway"),
    ("Meridian Field", "mobile app for field-service technicians"),
    ("Meridian Connect", "partner integration API"),
    ("Meridian Vault", "document storage with retention controls"),
    ("Meridian Insight", "forecasting add-on for Ledger"),
    ("Meridian Desk", "customer support ticketing tool"),
]
PRODUCT_FEATURES = [
    "multi-currency invoices", "role-based dashboards", "webhook retries", "offline sync", "audit trail export",
    "scheduled reports", "bulk import", "two-factor login", "custom fields", "SLA timers", "saved searches",
    "usage metering", "granular permissions", "PDF statements", "anomaly alerts", "data residency options",
]

# (system name, kind, vendor)
SYSTEMS = [
    ("Atlas CRM", "customer relationship management", "Salesforce"),
    ("Helix HRIS", "human resources information system", "Workday"),
    ("Orbit VPN", "remote access gateway", "Palo Alto Networks"),
    ("Nova Build", "continuous integration service", "Buildkite"),
    ("Quill Wiki", "internal knowledge base", "Atlassian Confluence"),
    ("Beacon Monitor", "metrics and alerting stack", "Grafana Labs"),
    ("Keystone IAM", "identity and single sign-on provider", "Okta"),
    ("Ledgerline ERP", "finance and procurement system", "NetSuite"),
    ("Relay Mail", "corporate email and calendar", "Google Workspace"),
    ("Harbor Registry", "container image registry", "JFrog"),
    ("Sentinel SIEM", "security event management platform", "Splunk"),
    ("Pioneer Data Lake", "analytics data lake", "Databricks"),
    ("Tide Ticketing", "IT service management tool", "ServiceNow"),
    ("Granite Backup", "backup and restore service", "Veeam"),
]
# Systems nearly every member of staff uses (the rest serve one part of the company).
COMPANY_WIDE_SYSTEMS = {"Orbit VPN", "Quill Wiki", "Keystone IAM", "Relay Mail", "Tide Ticketing", "Helix HRIS"}
# The team that owns each system: the one whose work it serves.
SYSTEM_OWNERS = {"Atlas CRM": "T07", "Helix HRIS": "T00", "Orbit VPN": "T08", "Nova Build": "T02",
                 "Quill Wiki": "T07", "Beacon Monitor": "T06", "Keystone IAM": "T08", "Ledgerline ERP": "T14",
                 "Relay Mail": "T07", "Harbor Registry": "T02", "Sentinel SIEM": "T08", "Pioneer Data Lake": "T04",
                 "Tide Ticketing": "T07", "Granite Backup": "T06"}
# Project milestones in delivery order; a project's quarterly milestones follow this order.
MILESTONES = ["discovery complete", "vendor contract signed", "design review passed", "security review closed",
              "data migration 60% done", "load test signed off", "beta in two regions", "pilot with three customers",
              "general availability"]
SYMPTOM_LABELS = ["sign-in failure", "slowness", "silent job failures", "intermittent timeouts", "stale reports",
                  "rejected uploads", "false alerts", "server errors"]
ROOT_CAUSES = [
    "an expired TLS certificate on the internal load balancer",
    "a misconfigured firewall rule pushed during a routine change",
    "database connection pool exhaustion after a traffic spike",
    "a failed disk on the primary storage node",
    "a memory leak introduced in the previous release",
    "a DNS record that was deleted by an automation script",
    "rate limiting by the upstream vendor API",
    "a stale cache entry after a schema migration",
    "a clock skew between the authentication servers",
    "an unannounced vendor maintenance window",
    "a runaway batch job that saturated the network link",
    "a permissions change that removed the service account's access",
]
# What a root cause names, system by system (12 shared causes for 423 incidents let a wrong page give the
# right answer): each incident's cause is one of these templates (parallel to ROOT_CAUSES and FIXES) filled with
# the system's name and one of its hosts, a change or a release, so the text names its incident (never the
# system's vendor or another fact: a cause states nothing but itself).
ROOT_CAUSE_TEMPLATES = [
    "an expired TLS certificate on the {sys} host {host}",
    "a misconfigured firewall rule in change CHG-{n} that cut {sys} off from {host}",
    "database connection pool exhaustion on the {sys} host {host} after a traffic spike",
    "a failed disk on the {sys} storage node {host}",
    "a memory leak introduced in {sys} release {ver}",
    "the DNS record of the {sys} host {host}, deleted by an automation script",
    "rate limiting of {sys} by an upstream API after {host} retried in a loop",
    "a stale cache entry on the {sys} host {host} after schema migration {n}",
    "a clock skew between the {sys} host {host} and the authentication servers",
    "an unannounced supplier maintenance window that took the {sys} host {host} offline",
    "a runaway batch job on the {sys} host {host} that saturated its network link",
    "change CHG-{n}, which removed the {sys} service account's access to {host}",
]
HOST_ROLES = ["app", "db", "web", "api", "worker", "cache", "gw", "batch", "store", "auth"]
SYMPTOMS = [
    "users could not sign in", "pages loaded very slowly", "scheduled jobs failed silently",
    "requests timed out intermittently", "reports showed stale numbers", "uploads were rejected",
    "alerts fired without a real problem", "the service returned server errors",
]
FIXES = [
    "renewed the certificate and added an expiry alert", "rolled back the change and added a peer check",
    "raised the pool limit and added back-pressure", "failed over to the replica and replaced the disk",
    "reverted the release and patched the leak", "restored the record and locked the automation scope",
    "negotiated a higher quota and added client-side retries", "flushed the cache and versioned the keys",
    "re-synchronised NTP and added a skew monitor", "moved traffic to the secondary region",
    "throttled the batch job and moved it off-peak", "restored the role binding and added a drift check",
]

# Why a project changed course: a decision that reverses an earlier one on its project gives one of these.
DECISION_REASONS = [
    "the vendor quotes came in well above the approved budget",
    "the pilot showed that the earlier approach would not scale",
    "the preferred supplier withdrew its offer",
    "the sponsor moved the money to a more urgent programme",
    "a security review ruled out the earlier approach",
    "the engineers who would have built it were moved to other work",
    "a cheaper option appeared after the first decision",
    "customer research pointed in another direction",
]

# Concept -> surface forms. A policy keeps one form; hard queries use another.
SYNONYMS = {
    "leave": ["annual leave", "PTO", "vacation days", "paid time off", "holiday allowance"],
    "remote": ["remote work", "working from home", "telework", "hybrid working"],
    "expenses": ["expense reimbursement", "business expenses", "travel claims", "out-of-pocket costs"],
    "parental": ["parental leave", "family leave", "maternity and paternity leave"],
    "sick": ["sick leave", "medical absence", "sick days"],
    "review": ["performance review", "appraisal", "annual evaluation"],
    "password": ["password", "passphrase", "login credential"],
    "access": ["access review", "entitlement audit", "permission recertification"],
    "retention": ["data retention", "record keeping", "archival period"],
    "codereview": ["code review", "pull request review", "merge approval"],
    "deploy": ["deployment", "production release", "rollout"],
    "incident": ["incident response", "outage handling", "service disruption management"],
    "vendor": ["vendor risk", "supplier assessment", "third-party due diligence"],
    "training": ["security awareness training", "phishing training", "cyber hygiene course"],
    "device": ["laptop", "workstation", "company computer"],
    "oncall": ["on-call", "pager duty", "out-of-hours support"],
    "gifts": ["gifts and hospitality", "business entertainment", "corporate gifting"],
    "bonus": ["bonus", "variable pay", "incentive compensation"],
    "referral": ["employee referral", "refer-a-friend", "internal referral"],
    "travel": ["business travel", "work trips", "corporate travel"],
}
SYNONYMS.update(GROWTH_SYNONYMS)  # the growth policies' concepts (lexicon_growth)

# (code prefix, domain, concept, title word, [(parameter phrase, unit, low, high)], owner team index)
POLICY_TOPICS = [
    ("HR-POL", "hr", "leave", "Policy", [("annual entitlement", "days", 18, 28),
                                         ("maximum carry-over into the next year", "days", 3, 10)], 0),
    ("HR-POL", "hr", "remote", "Policy", [("maximum {term} days per week", "days", 2, 5),
                                          ("home-office equipment allowance", "USD", 300, 1200)], 0),
    ("HR-POL", "hr", "expenses", "Policy", [("approval threshold for a single claim", "USD", 250, 2000),
                                            ("submission deadline after the expense is incurred", "days", 14, 60)], 14),
    ("HR-POL", "hr", "parental", "Policy", [("fully paid weeks for the primary carer", "weeks", 12, 26),
                                            ("fully paid weeks for the secondary carer", "weeks", 2, 8)], 0),
    ("HR-POL", "hr", "sick", "Policy", [("self-certified days before a doctor's note is needed", "days", 2, 5),
                                        ("paid days per rolling year", "days", 10, 20)], 0),
    ("HR-POL", "hr", "review", "Guideline", [("cycles per year", "cycles", 1, 4),
                                             ("calibration window", "weeks", 2, 6)], 0),
    ("HR-POL", "hr", "bonus", "Plan", [("target for individual contributors", "percent of base salary", 5, 15),
                                       ("target for people managers", "percent of base salary", 10, 25)], 0),
    ("HR-POL", "hr", "referral", "Programme", [("payout for a successful hire", "USD", 1000, 5000),
                                               ("months the hire must stay before payout", "months", 3, 6)], 1),
    ("HR-POL", "hr", "travel", "Policy", [("daily meal allowance", "USD", 40, 90),
                                          ("flight length before business class is allowed", "hours", 6, 10)], 14),
    ("IT-SEC", "it", "password", "Standard", [("minimum length", "characters", 10, 16),
                                              ("rotation interval", "days", 90, 365)], 8),
    ("IT-SEC", "it", "device", "Standard", [("replacement cycle", "months", 24, 48),
                                            ("disk encryption deadline for new {term}s", "days", 1, 7)], 7),
    ("IT-SEC", "it", "access", "Procedure", [("review frequency", "days", 30, 180),
                                             ("days to remove access after a role change", "days", 1, 10)], 8),
    ("IT-SEC", "it", "training", "Requirement", [("completion deadline for new hires", "days", 14, 45),
                                                 ("refresher frequency", "months", 6, 12)], 8),
    ("ENG-STD", "engineering", "codereview", "Standard", [("required approvals per change", "approvals", 1, 3),
                                                          ("maximum change size", "lines", 200, 800)], 2),
    ("ENG-STD", "engineering", "deploy", "Standard", [("change freeze before quarter end", "days", 3, 10),
                                                      ("canary duration", "minutes", 15, 120)], 6),
    ("ENG-STD", "engineering", "incident", "Runbook", [("acknowledgement target for severity 1", "minutes", 5, 30),
                                                       ("postmortem deadline", "business days", 3, 10)], 6),
    ("ENG-STD", "engineering", "oncall", "Standard", [("maximum consecutive weeks", "weeks", 1, 3),
                                                      ("weekly stipend", "USD", 150, 500)], 6),
    ("CMP-POL", "compliance", "retention", "Policy", [("retention period for customer records", "months", 24, 84),
                                                      ("deletion deadline after a verified request", "days", 14, 45)], 12),
    ("CMP-POL", "compliance", "vendor", "Policy", [("reassessment interval", "months", 12, 36),
                                                   ("annual spend that triggers a full review", "USD", 10000, 50000)], 12),
    ("CMP-POL", "compliance", "gifts", "Policy", [("value that must be declared", "USD", 50, 250),
                                                  ("annual cap per recipient", "USD", 200, 1000)], 12),
]

ENG_PROCESSES = [
    ("Branching Strategy", "how changes move from a feature branch to main"),
    ("Service Ownership Model", "who owns what in production"),
    ("Architecture Decision Records", "how significant technical choices are written down"),
    ("Dependency Upgrade Routine", "how third-party libraries are kept current"),
    ("API Versioning Guide", "how public interfaces evolve without breaking partners"),
    ("Test Pyramid Guidelines", "the balance of unit, integration and end-to-end tests"),
    ("Feature Flag Lifecycle", "how flags are created, rolled out and removed"),
    ("Database Migration Checklist", "how schema changes reach production safely"),
    ("Secrets Handling Guide", "where credentials live and who may read them"),
    ("Load Testing Playbook", "how capacity is verified before launches"),
]
OOD_TOPICS = [
    "What is Meridian's pet insurance reimbursement limit?",
    "How do I book the company sailing yacht for a team offsite?",
    "When does the Mars research station office open?",
    "Can salaries be paid in cryptocurrency at Meridian?",
    "What is the dress code for the annual masquerade gala?",
    "Which employees have access to the executive helicopter pad?",
    "What is the policy on bringing llamas to the Austin office?",
    "How many vineyard shares does Meridian own in Portugal?",
    "Who won the 2023 inter-office chess tournament?",
    "What is the cafeteria's sushi menu on Fridays?",
    "How do I enrol in the company's astronaut training programme?",
    "What is the procedure for reserving the rooftop telescope?",
    "Does Meridian sponsor a professional cricket team?",
    "What is the tax treatment of the Meridian lottery winnings scheme?",
    "Where is the underwater data centre located?",
    "How do I claim the quarterly skydiving allowance?",
]
#: Absurd things (each with a word no Meridian document uses) and the questions a larger suite asks about them
#: once :data:`OOD_TOPICS` are all asked (``query_gen.out_of_distribution``): 16 x 8 further hard questions.
OOD_THINGS = [
    "the pet insurance scheme", "the company sailing yacht", "the Mars research station",
    "salary payments in cryptocurrency", "the annual masquerade gala", "the executive helicopter pad",
    "llamas in the office", "the vineyard in Portugal", "the inter-office chess tournament",
    "the Friday sushi menu", "the astronaut training programme", "the rooftop telescope",
    "the company cricket team", "the lottery winnings scheme", "the underwater data centre",
    "the skydiving allowance",
]
OOD_FRAMES = [
    "Who approves requests for {x}?", "Which team looks after {x}?", "How much did Meridian spend on {x} last year?",
    "When was {x} introduced?", "Where are the rules for {x} written down?", "Who is the contact for {x}?",
    "How many employees used {x} in 2024?", "What changed about {x} this year?",
]
