"""Wording variants for the sentences render code writes on entity pages (policies, project status reports and
charters, system pages, profiles, team pages, product specs, engineering guides); merged into
:data:`hcrbench.synth.render_phrases.R`, which documents the rules every template keeps."""

from __future__ import annotations

PAGES: dict[str, list[str]] = {
    "policy.purpose": [
        "[This|The present] {word} [sets out|describes|lays down] [how|the way] Meridian [manages|approaches|"
        "deals with] {term}[, so that colleagues are treated consistently|, in plain language| and why].",
        "[Here you will find|This page gives] Meridian's [agreed|current] [approach to|position on] {term}[ and "
        "the people who apply it| and what managers must check].",
    ],
    "policy.applies": [
        "[It|This text] applies to [all permanent staff|every employee|all colleagues on a Meridian contract] "
        "[in every office|in all locations|worldwide|company-wide][| unless a local addendum says otherwise| "
        "including part-time colleagues].",
        "It covers [full-time and part-time|salaried and hourly|new and existing] [employees|colleagues|staff] "
        "[in all locations|across every site|in each country where Meridian employs people].",
    ],
    "policy.requests": [
        "Requests are [made|submitted|raised] through the [employee self-service portal|HR portal|intranet "
        "request form][| and acknowledged automatically].",
        "Managers [approve|review|decide on] requests within [five|three|ten] working days.",
        "Requests are [logged|recorded|filed] and reviewed by the owner team [each quarter|twice a year|"
        "monthly].",
    ],
    "policy.compliance": [
        "Breaches of this {word} are [reported to|escalated to|raised with] the legal and compliance function and [reviewed "
        "in the annual control assessment|sampled during internal audits|discussed at the risk committee].",
        "The internal audit function [samples|tests|inspects] [records|cases|files] under this {word} [every year|each "
        "quarter|on a rolling basis] and reports exceptions to the audit committee.",
    ],
    "policy.records": ["[Records|Files|Case notes] are kept for the [period|time] [required by|set out in|"
                       "defined in] the [records schedule|retention schedule|archiving standard][| and then "
                       "securely destroyed]."],
    "status.period": ["[Reporting period|Period|Quarter|Reporting quarter|Covering]: {q}[ (ending "
                      "{end})|, to {end}| - closes {end}]"],
    "status.risk": ["a key engineer is shared with another project", "vendor delivery dates keep slipping",
                    "test environments are unstable", "requirements from Finance are still changing",
                    "the data migration is slower than planned", "security review findings are still open",
                    "a [critical|major] supplier is [restructuring|changing ownership]",
                    "[integration|load|regression] testing [starts late|has no stable data]",
                    "[two|several] [contractors|analysts] leave [before the end of the quarter|at month end]",
                    "the [legacy|upstream] interface [lacks documentation|changes without notice]",
                    "[licence|hardware|hosting] costs [are rising|exceed the estimate]",
                    "[stakeholder|sponsor] availability [is limited|drops over the summer]",
                    "the [freight|courier] backlog delays [hardware|sensor|kiosk] shipments",
                    "[currency|exchange-rate] swings inflate [supplier|subscription] invoices",
                    "[trademark|patent|licensing] questions remain [unresolved|with outside counsel]",
                    "[union|works council] consultation [runs longer than expected|needs another round]"],
    "status.tracker": [
        "{x} [owns|is tracking|follows up] the [mitigation|response plan|recovery actions] and will [report "
        "back|give an update|raise it again] [at the next steering meeting|in two weeks|at the monthly review].",
    ],
    "status.next": [
        "Focus for next quarter is [closing open risks|hardening the release|finishing the migration] and "
        "[preparing the next milestone|training support staff|retiring old tooling].",
        "The team will re-baseline the [plan|schedule|forecast] at the next [steering meeting|quarterly review|"
        "sponsor checkpoint].",
        "No change to [scope|headcount|the timeline] is planned for next quarter[| unless the top risk "
        "materialises].",
        "[Next quarter|The coming quarter] [brings|includes|is about] [a pilot with real users|the first "
        "external release|a cost review|the hand-over to operations].",
    ],
    "status.product": [
        "The work feeds into {prod}, the {desc}.",
        "[Changes|Deliverables] [flow into|land in|feed] {prod}, the {desc}.",
    ],
    "status.release": ["[Release planning is|Launch dates are|Rollback planning is] [coordinated|aligned|agreed] "
                       "with the {team} team[| every sprint| at each checkpoint]."],
    "charter.goal_note": [
        "Success will be [measured|judged|assessed] against the [targets|outcomes|measures] agreed at "
        "[kickoff|the planning workshop|the first sponsor meeting].",
        "The goal was [agreed|settled|confirmed] with the sponsor [during planning|at kickoff|in a short "
        "written brief].",
        "[Scope changes|Changes to this goal] need the sponsor's [written approval|agreement|sign-off].",
    ],
    "charter.milestone_head": ["Quarter|Planned milestone", "Quarter|Milestone", "Period|Planned milestone",
                               "Quarter|Target milestone", "Quarter|Milestone planned"],
    "charter.engineering": [
        "Work is delivered in [two-week|three-week|short] [increments|sprints|iterations] behind feature flags.",
        "Every change follows the [peer check standard|release standard|team working agreement][| and the "
        "documented release checklist].",
        "[Architecture|Interface|Data model] choices are [written down|recorded|captured] as short decision "
        "notes[| in the repository| next to the code].",
    ],
    "charter.customer": [
        "[Account managers|Field sales|Customer success staff] will [brief|prepare|reassure] [key accounts|larger "
        "customers|resellers] about {prod} [a month ahead|during quarterly business reviews|at the user "
        "conference].",
        "{prod} customers will see the changes [gradually|in stages|over several releases], starting with "
        "[a pilot group|internal users|one region].",
        "[Customers|Users] of {prod} [get|receive|will see] [release notes|in-app guidance|a short video] "
        "[before each change|when features arrive|ahead of the switch].",
    ],
    "system.planned": [
        "[Patch|Update] the underlying [operating system|database engine|runtime]",
        "Review [licence usage|seat counts|renewal terms]", "Rotate [service credentials|signing keys|API tokens]",
        "Test [restore from backup|failover to the second site|disaster recovery steps]",
        "Tidy up [stale accounts|unused groups|orphaned integrations]", "Update the [runbook|support guide|"
        "architecture diagram]", "Renew the [support contract|maintenance agreement|hardware warranty]",
        "Archive [old projects|inactive spaces|closed tickets]",
        "Benchmark [response times|batch windows|storage growth]",
        "Decommission [the old file share|legacy connectors|an unused mirror]",
        "Reconcile [asset inventory|cost centres|licence invoices]",
        "Harden [firewall rules|cipher settings|container images]",
    ],
    "system.support": ["Support hours: [business hours|weekdays from eight to six|office hours in each "
                       "region], with [out-of-hours cover|a duty engineer|an escalation rota] for severity 1 "
                       "incidents"],
    "system.access": [
        "[Access|An account] is [granted|provisioned|set up] [by role|per team|on request][; ask your manager "
        "to submit the request|; allow two working days|, and unused accounts are disabled after ninety days].",
    ],
    "system.integration": [
        "[Interfaces|Connections|Data feeds] use the [documented API|published interface|event stream]; "
        "[credentials|tokens|keys] [live in|are stored in|come from] the secrets vault.",
        "Changes to integrations [follow the release standard|need a rollback plan|are tested in staging "
        "first][| and a named reviewer].",
    ],
    "profile.contact": [
        "[Prefers|Likes|Answers fastest on] [chat|short messages|a quick call] for [quick questions|small "
        "requests|anything urgent].",
        "[Office hours|Drop-in time|An open slot] on [Mondays|Tuesdays|Wednesdays|Thursdays|Fridays][ after "
        "lunch| first thing| late afternoon].",
        "[Happy|Glad|Always keen] to [mentor new joiners|review drafts|pair on tricky problems|give talks to other teams|run lunch-and-learn sessions|sanity-check estimates|proofread proposals|host visiting interns][| - just ask| when time allows| most weeks].",
        "[Works|Is usually online] [early|late] [to overlap with colleagues in Asia|to catch the Americas|around "
        "school pick-ups]; [messages|replies] may arrive [outside office hours|at odd times].",
        "[Writes|Keeps] [detailed|tidy|lightweight] notes in the team wiki[ and links them from tickets|, which are "
        "worth skimming first].",
        "[Usually|Mostly] [offline|heads-down] [on Friday afternoons|before ten|during quarter close]; "
        "[email|a ticket|a message] works best then.",
        "[Calendar is open|Feel free to book time|Book a slot] [for anything longer than ten minutes|via the "
        "shared calendar|whenever there is a gap].",
    ],
    "profile.email": ["Email {e}.", "[Email|Mail|Write to]: {e}", "[Reach|Contact] {f} at {e}."],
    "team.table": ["Name|Role|Location", "Name|Role|Based in", "Colleague|Role|Location", "Name|Job title|Office",
                   "Person|Role|Location"],
    "team.working": [
        "[Raise|Post|Drop] requests in the [team channel|intake queue|shared inbox]; we [triage|sort|review] "
        "them [every morning|twice a day|each afternoon].",
        "[Use the intake form|Open a ticket|File a request] for anything that takes more than [a day|a few "
        "hours|one sprint].",
        "[Urgent|Blocking|Time-critical] issues [can be escalated|go] to whoever is [on the rota|on duty|covering "
        "this week][| by phone| through the pager].",
        "We hold [open office hours|a drop-in clinic|an open session] every [Tuesday|Wednesday|Thursday] "
        "[afternoon|morning|lunchtime][| in the main meeting room| on video].",
    ],
    "product.constraints": [
        "[Every capability|Each feature|New functionality] must [work|run|be supported] in [both EU and US "
        "regions|every hosting region|all supported browsers][| from day one].",
        "[Latency|Page weight|Memory] budgets are [enforced|checked|measured] in the [load-testing playbook|"
        "nightly pipeline|release checklist].",
        "[New capabilities|Risky changes|Experiments] ship behind feature flags[| and default to off| for at "
        "least one release].",
    ],
    "eng.steps": [
        "[Open|Create|Raise] a ticket that [describes|explains|summarises] the change and its [risk|blast "
        "radius|rollback route].",
        "[Write|Update|Extend] the [tests|fixtures|checks] [first|before the code|alongside the change].",
        "[Ask|Invite] a second engineer to [review|look over|sign off] [before merging|before release|the "
        "final diff].",
        "[Watch|Monitor|Keep an eye on] the [dashboards|error rates|latency graphs] for [an hour|a shift|the "
        "first day] after release.",
        "[Record|Note|Write down] anything [surprising|unexpected|odd] in the team's [decision log|journal|"
        "retrospective notes].",
        "[Tag|Label|Mark] the change with the [service|component|owning team] so others can find it later.",
        "[Announce|Share|Post] the [change|release|merge] in the [engineering channel|team thread|weekly "
        "notes][| with a one-line summary].",
    ],
    "eng.audience": ["[It is written for|It is meant for|The audience is] [every engineer|new and experienced "
                     "engineers|anyone who ships code] at Meridian[| and for their reviewers].",
                     "[Read it|Skim it] [before your first change|once a year|when something here feels "
                     "unclear][| and suggest edits].",
                     ],
    "eng.related": ["This guide must be read together with the {ref}.",
                    "[Read|Use|Apply] this guide together with the {ref}.",
                    "This guide [sits alongside|complements|should be read with] the {ref}."],
    "status.line": ["{c} is [currently|right now|at this point|as of this note] {status}[,| and] [heading "
                    "towards|working towards|aiming for|on the way to] {ms}."],
    "status.ms_note": ["[on the critical path|depends on a supplier|internal only|needs sponsor sign-off|"
                       "shared with another team|fixed date|may move|gated by a security check|linked to a "
                       "contract renewal|needs a training plan|customer-facing|tentative|-|-]"],
    "policy.system": ["Requests and approvals under this {word} are [recorded|stored|tracked|kept] in {sys}, "
                      "which is administered by the {team} team[|; entries are audited yearly|; "
                      "managers get read access]."],
    "charter.lead": ["[Project lead|Lead|Delivery lead]: {n} ({role}, {team})"],
    "charter.sponsor": ["[Executive sponsor|Sponsor|Accountable executive|Sponsor and budget holder]: {n}"],
    "charter.partners": ["[Partner teams|Supporting teams|Contributing teams|Also involved]: {teams}"],
    "profile.skill_tail": ["[||- hands-on|- seasoned practitioner|- sharpening this year|(wrote the internal primer)|(ran several workshops)|- occasional contributor|- trusted reviewer|(picked up on a previous team)|- go-to person|- currently learning|(mentors others)|(for "
                           "several years)|- day-to-day|- happy to advise|(recent focus)]"],
    "product.feature_tail": ["[|- available on every plan|- shipped two releases ago|- behind a paid add-on|- localised into six languages|(redesigned last spring)|- popular with larger tenants|- has a public changelog|for enterprise customers|- configurable per "
                             "workspace|with an admin switch|- most requested last year|(in beta in some "
                             "regions)|- used by most accounts]"],
    "status.milestone": ["[The main milestone this quarter|This quarter's main milestone|Milestone for the "
                         "quarter|Headline milestone|Key checkpoint this quarter]: {ms}."],
    "status.lead": ["[Project lead|Lead|Led by|Accountable lead|Delivery lead]: {n}"],
    "charter.product": ["[The project delivers changes to|Most changes land in|The work changes|Deliverables "
                        "ship as part of] {prod}[| in stages| over the year|, release by release]."],
    "system.state": ["[At quarter end|By the close of the quarter|When the quarter closed|At the time of this "
                     "review] the service was {state}."],
    "system.admin": ["{n} [remains|is still|continues as] the primary administrator, on behalf of the {team} "
                     "team[| and holds the emergency credentials| with a named deputy]."],
    "profile.role": ["{role}, {team}", "{role} [in|within|on] the {team} team", "{role} | {team}",
                     "[Role|Position|Job]: {role} ({team})"],
    "team.lead": ["The team is led by {n}.", "{n} leads the team.", "Team lead: {n}.",
                  "[Leadership|Day-to-day leadership|Line management for the team] [sits with|comes from|is "
                  "provided by] {n}."],
}
