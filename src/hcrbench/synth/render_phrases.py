"""Wording variants for the sentences that render code writes around facts (incident, decision, meeting,
announcement, news and update pages), so the same document type reads differently from page to page.

``R[name]`` is a list of templates for :func:`hcrbench.synth.text.pick` (each ``[a|b]`` group is
expanded with the document's RNG, ``{placeholders}`` are filled by the renderer). A template whose renderer keys
it as a fact statement keeps the fact's value placeholder in every expansion; the rest state no world fact. The
same safety rules as the filler pools apply (no ``lexicon.SYNONYMS`` form, no identifier, no entity name), and
``tests/synth/test_meridian.py`` scans every option.
"""

from __future__ import annotations

import random

from hcrbench.synth.phrases_extra import MORE_RENDER
from hcrbench.synth.render_phrases_pages import PAGES
from hcrbench.synth.text import pick


def tail(r: random.Random, name: str) -> str:
    """An optional ending drawn from ``R[name]`` (a single ``[|a|b]`` group), with its leading space."""
    t = pick(r, R[name])
    return f" {t}" if t else ""


HEADINGS: dict[str, list[str]] = {
    "Purpose": ["Why this exists", "Intent", "Aim of this document"],
    "Changes in this version": ["What changed", "Revision notes", "Differences from the previous version"],
    "Systems and records": ["Where requests are recorded", "Tools and records"],
    "Summary": ["Overview", "In brief", "At a glance"],
    "Budget": ["Spend", "Finances", "Budget position"],
    "Risks and issues": ["Risks", "Issues and risks", "What could go wrong"],
    "Next steps": ["Looking ahead", "Next quarter", "Coming next"],
    "Goal": ["Objective", "Purpose of the project", "What we want to achieve"],
    "People": ["Who is involved", "Roles", "Key people"],
    "Scope and budget": ["Scope and funding", "Budget and scope", "What it covers and costs"],
    "Milestones": ["Plan by quarter", "Key dates", "Roadmap"],
    "Engineering approach": ["How we build it", "Delivery approach", "Technical approach"],
    "Customer impact": ["What customers will notice", "Effect on customers", "Customer experience"],
    "Availability": ["Uptime", "Service availability", "Reliability"],
    "Ownership": ["Who runs it", "Owners", "Accountability"],
    "Planned work": ["Upcoming work", "Maintenance plan", "Work queued for next quarter"],
    "What it is": ["Overview", "About this service", "Description"],
    "Getting access": ["How to get access", "Requesting an account", "Access requests"],
    "Integration": ["Connected tools", "Connecting other tools", "For engineers"],
    "About": ["Profile", "In short", "Background at a glance"],
    "Areas of expertise": ["Skills", "Knows about", "Specialisms"],
    "Current projects": ["Projects", "Leading now", "Current work"],
    "Mission": ["What we do", "Purpose", "Our remit"],
    "Working with us": ["How to reach us", "Getting help from us", "Requests and contact"],
    "Overview": ["Summary", "Product at a glance", "What it does"],
    "Key capabilities": ["Capabilities", "Main features", "What it can do"],
    "Engineering constraints": ["Technical constraints", "Constraints", "Guard rails"],
    "Steps": ["How to do it", "Procedure", "The process"],
    "Related standards": ["See also", "Related documents", "Read alongside"],
    "Root cause": ["Cause", "Why it happened", "Underlying cause"],
    "Resolution": ["Fix", "How it was fixed", "Recovery"],
    "Project impact": ["Effect on projects", "Delivery impact"],
    "Engineering follow-up": ["Follow-up engineering work", "Preventing a repeat", "Hardening"],
    "Context": ["Background", "The problem", "Why a decision was needed"],
    "Decision": ["Outcome", "What was decided", "The decision"],
    "Options considered": ["Alternatives", "Options", "Choices on the table"],
    "Approval": ["Sign-off", "Approvals", "Accountability"],
    "Delivery impact": ["Effect on delivery", "Plan changes", "Impact on the plan"],
    "Policy considerations": ["Compliance check", "Policy check", "Rules that apply"],
    "Consequences": ["What happens next", "Follow-on effects", "Implications"],
    "Decisions": ["Decisions confirmed", "Agreed", "Outcomes"],
    "New faces": ["Welcome", "New joiners", "Say hello"],
    "What we are working on": ["Current focus", "On our plate", "Where our time goes"],
}


def head(r: random.Random, name: str) -> str:
    """A section heading: ``name`` or one of its alternatives in :data:`HEADINGS`."""
    return r.choice([name, *HEADINGS.get(name, [])])


R: dict[str, list[str]] = {
    # ------------------------------------------------------------------ incidents
    "incident.severity": [
        "[Severity|Impact rating|Classification|Triage level|Priority class]: {sev}[ ({label})|, {label}| "
        "({label} impact)| - rated {label} at triage][|, confirmed by the duty manager|, agreed on the bridge "
        "call|, set by the service desk|, unchanged after review]",
    ],
    "incident.summary": [
        "On {d}, {sym} on {sys}.",
        "{sys} users reported that {sym} on {d}.",
        "[Early|Late|Around midday] on {d}, [staff|colleagues|several teams|the service desk] [noticed|found|"
        "flagged] that {sym} on {sys}.",
        "[Beginning|Starting] on {d}, {sym} on {sys}[, and the service desk saw a burst of calls| for a "
        "sizeable group of people| across more than one office|, first in one region and then everywhere].",
        "This [ticket|record|write-up] covers {d}, when {sym} on {sys}[ for part of the working day| during a "
        "busy period| while a change window was open].",
    ],
    "incident.duration": [
        "[The disruption|The outage|The degradation|The interruption|Disruption to users] lasted {n} minutes "
        "[before service was restored|from first alert to full recovery|in total|end to end|until normal service "
        "resumed|before the fix took hold].",
        "[Users were affected|People felt the impact|The problem persisted] for {n} minutes[ in all| before "
        "things settled| until recovery was confirmed].",
    ],
    "incident.first": [
        "[First automated alert fired|Monitoring showed the first errors|A synthetic probe started failing|"
        "Dashboards turned red|An error-rate threshold was crossed].",
        "[A customer success manager escalated a complaint|The overnight batch report arrived empty|A warehouse "
        "scanner stopped syncing|Payroll staff phoned the helpdesk|A partner's integration began bouncing "
        "requests].",
        "The first [user complaint|call|chat message|email] reached the service desk[| from the finance floor| "
        "from a regional office| from a night-shift colleague].",
    ],
    "incident.opened": ["{rep} [opened|raised|logged|filed] {id}[| from the service portal| after a call from a "
                        "colleague| and tagged it for triage| with screenshots attached]."],
    "incident.ack": ["{asg} [acknowledged the ticket|picked up the ticket|took ownership of the ticket|claimed the "
                     "ticket] and [started investigating|began the investigation|joined the bridge call|pulled in "
                     "a second engineer|checked the recent change log]."],
    "incident.major": ["[A major incident was declared|The duty manager declared a major incident|Major incident "
                       "handling was invoked|A major incident bridge was opened][| and status updates began| and "
                       "the communications lead was paged| and executives were briefed]."],
    "incident.cause": [
        "The [probable|likely] cause was [identified|isolated|narrowed down][| from the logs| with help from a "
        "second team| after comparing configuration snapshots].",
        "The team [confirmed the cause and agreed the fix|agreed a fix after a short huddle|settled on a fix "
        "and asked for a peer check].",
        "A fix was [prepared and tested|drafted and tried in staging|written, reviewed and queued][| behind a "
        "toggle| on a single node first].",
    ],
    "incident.restored": ["[Service was fully restored|Normal service resumed|Full recovery was confirmed|Error "
                          "rates returned to baseline] and [monitoring returned to normal|the bridge call was "
                          "closed|the status page was updated|the ticket moved to monitoring]."],
    "incident.root_cause": [
        "[The root cause was|Investigation traced the problem to|The underlying cause turned out to be|"
        "Responders traced the fault to|The trigger was found to be] {c}.",
        "The [postmortem|review|follow-up analysis|timeline review] [found|concluded|established] that the "
        "[trigger|cause|starting point] was {c}.",
        "[After|Following] [a careful look at the logs|a walk through the change history|a joint review with "
        "the platform engineers|two days of digging|a replay in staging|interviews with the responders|a packet "
        "capture|a vendor escalation], the cause was [pinned|traced|narrowed down|attributed] to {c}.",
    ],
    "incident.fix": [
        "The {team} team, which owns {sys}, {fix}.",
        "As [owner|owning team] of {sys}, the {team} team {fix}.",
        "[To resolve it|In response|For the fix], the {team} team, which owns {sys}, {fix}.",
    ],
    "incident.closer": [
        "A [postmortem|blameless review|retrospective|lessons-learned session] was [scheduled|booked|arranged|put in the diary] [within the agreed deadline|for later in the week|with every responder invited|before the next change window|with an external facilitator|for the following Tuesday].",
        "Follow-up actions are [tracked|logged|recorded|kept] in the [service desk queue|problem record|team "
        "backlog|incident tracker][| with named owners| and reviewed weekly].",
        "No [customer data|personal information|client record|payment detail] was [affected|exposed|lost|altered|corrupted][| at any point| according to the audit logs|, which the privacy team double-checked| - forensic checks confirmed this].",
        "[Status page notices|Internal broadcasts|Chat announcements] were [posted|sent|published] at [the "
        "start and the end|each stage|regular intervals][| during the disruption| through the recovery].",
        "[Insurers|The risk office|The compliance desk] [were notified|received a summary|asked for the "
        "timeline][| as a precaution| the same day].",
        "[Credit notes|Service credits|Goodwill gestures] [were|are being] [considered|prepared|issued] for "
        "[affected clients|two large accounts|partners on premium contracts].",
        "The change [freeze|moratorium|pause] on {sys} was lifted [the next morning|once the fix held for a day|"
        "after the postmortem].",
        "[Runbook|Playbook|Checklist] [steps|entries|pages] for {sys} were [rewritten|corrected|expanded] to "
        "[match what actually worked|reflect the real recovery path|cover this scenario].",
    ],
    "incident.project": [
        "[The outage|The disruption|This incident] [delayed|held up|pushed back|interrupted] [testing|a test cycle|"
        "integration testing|a planned demo|user acceptance testing] for project {p}, [led by {lead}|which {lead} "
        "leads|whose lead is {lead}].",
    ],
    "incident.engineering": [
        "[An automated check|A new canary|A synthetic transaction|A contract test] now [guards against|catches|"
        "detects] this [failure mode|kind of fault|pattern] [before release|within minutes|in staging], and "
        "[the alert threshold was lowered|paging rules were tightened|the dashboard gained a dedicated panel|the "
        "on-duty handbook was updated].",
        "[Engineers|The platform group|The owning engineers] [added|wrote|introduced] [a chaos experiment|a "
        "failover drill|a load test|a configuration lint] that [reproduces|simulates|exercises] this [fault|"
        "scenario|failure][ every sprint| each quarter| in the nightly pipeline].",
    ],
    # ------------------------------------------------------------------ decisions
    "decision.header": [
        "Date: {d} | Project: {p} | Status: approved",
        "[Decided|Recorded|Agreed] on {d} | Project: {p} | [Status: approved|State: approved|Approved]",
        "Project {p} | {d} | [approved|signed off|final]",
    ],
    "decision.context": [
        "Project {p} [needed|was looking for|had to find] a [way|practical way|sustainable way|affordable way] to {goal}.",
        "[To|In order to] {goal}, project {p} [had to choose an approach|needed a delivery route|needed to pick "
        "between several routes].",
        "[The question|The problem] for project {p} was how best to {goal}.",
    ],
    "decision.process": [
        "[Several|Four|A handful of] [options|approaches|alternatives] were [compared|assessed|scored] [over "
        "two workshops|in a half-day session|against a shared scorecard|with input from finance and security].",
        "The team weighed [cost|licence fees|total ownership cost], [time to deliver|lead time|staffing] and "
        "[operational risk|support burden|migration effort][| before recommending one path| with the sponsor "
        "present].",
        "[Architects|Engineers|Analysts] from [two|three|several] teams [prepared|drafted|assembled] a [short|"
        "one-page|side-by-side] [comparison|options paper|trade-off table] [for the review|ahead of the "
        "meeting|for the sponsor].",
    ],
    "decision.decision": [
        "The [team|working group|steering group] [decided|resolved|voted] to {opt}[| after two rounds of discussion| without dissent].",
        "[After discussion|On balance|Having compared the options], the team [decided|agreed|chose] to {opt}.",
        "The [recommendation|outcome|conclusion] was to {opt}[| for now| for this phase].",
    ],
    "decision.cost": [
        "The expected cost is {cost}.",
        "[Expected|Estimated|Forecast] cost: {cost}[| over the first year| including contingency| excluding "
        "internal staff time].",
        "[This is expected to|The estimate says it will|Finance expects it to] cost {cost}.",
    ],
    "decision.chosen": ["{o} - [chosen|selected|approved|preferred][| by the sponsor| in the review| after "
                        "scoring| with broad support| on balance]", "{o}: [chosen|the selected option|approved by the "
                        "sponsor|the agreed route|recommended and approved]"],
    "decision.alternative": [
        "Partner with a systems integrator", "Lease capacity from a regional hosting partner",
        "Crowdsource ideas through an internal hackathon", "Acquire a small startup with a similar product",
        "Pool budget with a neighbouring department", "Hire a specialist contractor for six months",
        "Run a time-boxed pilot first", "Outsource to a managed service provider",
        "Adopt an open-source tool and support it ourselves", "Keep the current manual workaround",
        "Fold the work into an existing programme", "Share a solution with a sister company",
        "Licence a white-label module", "Rebuild from scratch on a new stack", "Commission a consultancy study",
        "Wait for the next release of the current tooling",
    ],
    "decision.approver": [
        "{a} [approved|endorsed|ratified] the decision; {o} [owns its implementation|carries it forward|takes it from here].",
        "[Approval|Sign-off] came from {a}, and {o} [owns|is accountable for|leads] [the implementation|delivery]"
        "[| of the decision| of this choice].",
        "{a} [signed the decision off|gave final approval]; [{o} owns its implementation|implementation sits "
        "with {o}].",
    ],
    "decision.delivery": [
        "{o}, [who leads|as lead of] {p}, will [revise|rework|refresh] the [delivery plan|roadmap|schedule] and "
        "[milestones|checkpoints|dates] [before the next steering meeting|within two weeks|by the next review]."
    ],
    "decision.team": [
        "[Most of the effort|The bulk of the work|Day-to-day delivery] [falls to|sits with|lands on] the {team} "
        "team[| with help from partners| for the next two quarters].",
    ],
    "decision.policy": [
        "The option was checked against {pol} and found compliant.",
        "[Legal|Compliance|The control owners] [reviewed|checked|assessed] the option against {pol}[ and "
        "raised no objection| and found it compliant| with no exceptions needed].",
    ],
    "decision.consequence": [
        "The delivery plan is [updated|revised|amended|reworked] to [reflect this choice|match the chosen route|"
        "absorb the new scope][| and shared with stakeholders| before the next checkpoint].",
        "[Finance|The finance partner|The budget holder] will [adjust|update|rebase] the [forecast|quarterly "
        "outlook|cost plan][| at month end| in the next cycle].",
        "[Affected|Dependent|Neighbouring] teams were [informed|briefed|sent a summary][| by email| in the "
        "weekly forum| through the programme channel].",
        "The decision will be [revisited|re-examined|checked again|reopened] [in six months|after the pilot|at the annual planning round|if costs rise by more than a tenth|if the supplier market shifts|once usage figures are in].",
        "[Purchasing|The sourcing desk|The buying office] will [update|amend|review] [supplier paperwork|open "
        "purchase orders|contract schedules] [where needed|before signature|within the month].",
        "[Support|Service desk|Operations] [staff|leads|managers] will be [trained|briefed|walked through the "
        "change] [before go-live|during the pilot|in a short clinic].",
        "[Hiring plans|Headcount requests|Staffing assumptions] for the [quarter|half-year|programme] are "
        "[unchanged|being reworked|on hold until the pilot ends].",
    ],
    # ------------------------------------------------------------------ meetings
    "meeting.attendees": ["Attendees: {names}", "[Present|In the room|Participants|Who attended]: {names}"],
    "meeting.chair": [
        "Chair: {chair} | Next meeting: {next}",
        "[Chaired by|Facilitator|Host]: {chair} | [Next session|Next meeting|Follow-up meeting]: {next}",
        "{chair} [chaired|ran the session|facilitated][|; the next meeting is on {next}|. Next: {next}|; the group "
        "meets again on {next}]",
    ],
    "meeting.discussion": [
        "[The group|Everyone|The room] [reviewed|went through|looked at] progress on {c} [against the plan|since the last session|milestone by milestone].",
        "{chair} opened with a [recap|summary|quick recap|candid review] of the last [two|three|few] weeks on {c}.",
        "{chair} [started|kicked off|began] [with|by walking through] [the burn-down chart|the latest "
        "dashboard|open pull requests|the risk register|last week's actions] for {c}.",
        "[Discussion|The conversation|Most of the hour] [centred on|focused on|kept returning to] [how {c} is "
        "tracking|what {c} still needs|the next {c} checkpoint][| and who needs to be involved| and what "
        "could slip].",
    ],
    "meeting.mood": [
        "[Most of the time|A large part of the hour|The longest discussion] went on [the open risks|vendor "
        "timelines|test environment stability|the migration rehearsal|staffing over the holidays].",
        "[Testing capacity|Reviewer availability|Environment access|Contract paperwork|Data quality|Translation "
        "turnaround|Hardware lead time|Invoice reconciliation|Budget phasing] was the "
        "[main|biggest|most pressing] [concern|worry|sticking point][| this time| again].",
        "[The team|Everyone present|The group] agreed the [scope|plan|target date] [is still right|still holds|needs no change][| for this quarter|, with one small trim| after a short debate].",
        "[Energy in the room was good|The tone was upbeat|People were candid|The atmosphere was relaxed|Debate was lively], [though two topics ran over|and the agenda finished early|even where opinions differed|despite a patchy video link|and nobody checked their phone].",
        "[A guest from|Someone from|A visitor from] [procurement|legal|customer support|the analytics group] "
        "[joined for|sat in on|dropped into] the [first|last] [ten|fifteen|twenty] minutes.",
    ],
    "meeting.decision": [
        "[Attendees|The group] [confirmed|endorsed|noted] decision {d}[ and asked the owner to share the plan| "
        "and requested a written plan within a week| and agreed to revisit it at the next session].",
    ],
    "meeting.action": [
        "update the [risk log|risk register|issue tracker]", "draft the [test plan|cutover plan|training outline]",
        "confirm [vendor dates|supplier availability|licence renewal terms]",
        "prepare the [demo|walkthrough|pilot briefing]", "book the next [review|retrospective|design session]",
        "circulate the [budget view|cost breakdown|spend forecast]",
        "write up the [open questions|design trade-offs|meeting summary]",
        "check capacity with the [platform|data|security] team",
        "share the revised [timeline|roadmap|resourcing plan]",
        "collect feedback from [pilot users|early adopters|support agents]",
        "chase the [legal|procurement|security] sign-off", "clean up the [backlog|board|shared folder]",
        "schedule a [dry run|rehearsal|tabletop exercise]", "agree [acceptance criteria|exit criteria|"
        "success measures] with the sponsor", "reconcile the [invoice|purchase order|timesheet] discrepancies",
        "arrange [room bookings|travel|catering] for the workshop",
        "document the [rollback steps|escalation path|hand-off checklist]",
        "review [accessibility|localisation|translation] feedback",
        "benchmark the [new build|import job|search index] against last month",
        "invite [finance|facilities|internal audit] to the next session",
        "negotiate a [discount|longer warranty|payment holiday] with the reseller",
        "[prototype|sketch|storyboard] the [setup wizard|approval screen|mobile checkout]",
        "survey [warehouse supervisors|branch managers|call-centre agents] about the [pilot|new form|workflow]",
        "draft a [memo|briefing note|one-pager] for the [board|executive committee|works council]",
        "estimate [storage|egress|licensing] costs for the next [year|two years]",
        "audit [spreadsheet formulas|macro-heavy workbooks|shared drive permissions]",
    ],
    "meeting.action_line": ["{who}: {what} by {due}", "{who} to {what} by {due}", "{what} ({who}, by {due})",
                            "[By|Before] {due}, {who} will {what}"],
    # ------------------------------------------------------------------ announcements, news, updates
    "announce.read": [
        "[Please|Do] [read|skim|look through] the [full text|complete document|updated page] [before raising a "
        "request|before asking your manager|if you are unsure how this affects you][| - it is short| - the "
        "changes are highlighted].",
        "[Your manager|Your HR partner|The helpdesk] can [explain|walk you through|clarify] [what changed|the "
        "new figures|how this applies to you][| in a short call| by chat].",
    ],
    "announce.demo": [
        "[Come and see|Drop by for|Join us for] [a live demo|a short walkthrough|the showcase] [at the next "
        "all-hands|in the atrium on Friday|during lunch on Thursday|in the town hall slot][| - coffee provided|"
        " - bring questions| - recordings will follow].",
        "[Feedback is welcome|Ideas are welcome|Questions can be posted|Comments can go] in the [project channel|comment thread below|"
        "feedback form][| at any time| before the next sprint].",
    ],
    "announce.maintenance": [
        "{sys} will be [offline|unavailable|read-only] for [two|three|about four] hours [this Saturday|on "
        "Sunday morning|overnight on Friday] for [planned maintenance|a version upgrade|storage work|"
        "a security patch].",
    ],
    "announce.plan": [
        "[Save your work|Log out|Finish open submissions] [before the window starts|beforehand|ahead of time]"
        "[| to avoid losing changes| to be safe].",
        "[If something looks wrong afterwards|If you hit an error afterwards|For any problem after the window],"
        " [raise a ticket|call the service desk|post in the support channel].",
    ],
    "announce.welcome": [
        "[Please join me in congratulating|Warm congratulations to|A big congratulations to] {n} on [the new "
        "role of|a move into the role of|stepping up as] {role}[!|.]",
    ],
    "announce.team": [
        "{f} [stays|remains|will keep working] with the {team} team[| and keeps the same desk| for now].",
    ],
    "announce.signature": ["{n}, {role}[|, for the leadership group|, on behalf of the organisers|, with the "
                           "programme office| - replies welcome| - comments go to the team inbox|, writing "
                           "after the town hall|, for the working group]", "- {n}, {role}", "[Posted by|From|Written by|Signed] {n}, {role}[|, with thanks to all involved]",
                           "{n} ({role})[| - questions welcome| - thanks for reading]", "{n} | {role}"],
    "news.title": ["{t} [newsletter|news|monthly update|bulletin|round-up|team digest|dispatch|notebook|"
                   "corner|post|chronicle|highlights|pulse check]"],
    "news.contact": [
        "[Questions about our work go|Requests for our team go|Anything about our work goes] to {lead}[| "
        "directly| in the first instance].",
        "[If you need us|For anything related to our work], [talk to|message|reach out to] {lead}[| or drop into "
        "our channel| any time].",
    ],
    "news.project": ["[The team is supporting|We are helping|Much of our time goes to|Our main commitment is] "
                     "project {p}, which [aims to|exists to|sets out to|is trying to] {goal}."],
    "update.title": ["{p}: [mid-quarter note|mid-quarter update|progress note|interim update|quick status check|checkpoint note|where we are|field notes|halfway report|short update]"],
    "update.joined": [
        "{x} [joined|came into|was added to] the [working group|project team|core team] [this month|recently|"
        "a few weeks ago] to help with [testing|data checks|documentation|release planning|user research|vendor liaison|"
        "accessibility audits|pricing analysis].",
    ],
    "update.next": [
        "[The next steering meeting|The sponsor review|The quarterly checkpoint] will [review|revisit|confirm] "
        "the [plan|timeline|scope][| in detail| along with the risks].",
        "No [budget change|extra headcount|scope change|new funding] is [requested|needed|expected] "
        "[at this stage|this quarter|for now].",
        "[A short demo|A written summary|A recorded walkthrough] [follows|will be shared|goes out] [next month|"
        "after the next sprint|at quarter end].",
    ],
    "update.product": [
        "[The changes land in|This work touches|The design affects] {prod}[, and| so] the {team} team is "
        "[reviewing the design|checking the design|looking over the proposals][| closely| this sprint].",
    ],
    # ------------------------------------------------------------------ near-duplicate cluster pages
    "release.fixed": [
        "[Several|A few|Some] display issues in [exported reports|printed invoices|the settings screen|dark mode].",
        "A [rare|sporadic|hard-to-reproduce|long-standing] [error|crash|freeze|glitch] when [saving settings|renaming a folder|importing a spreadsheet|switching accounts|attaching large files|printing receipts|merging duplicate contacts|scrolling long tables].",
        "[Dates|Currency symbols|Time zones] [showed incorrectly|were misaligned|rendered oddly] in [some "
        "locales|the summary view|downloaded files].",
        "[Lookups|Filtering|Sorting] [ignored|mishandled|dropped] [accented characters|empty fields|long names]"
        "[| in rare cases| on mobile].",
        "[Notifications|Reminder emails|Digest messages] were [sent twice|delayed|missing a link] for [some "
        "users|shared workspaces|new accounts].",
        "[Tooltips|Breadcrumbs|Keyboard shortcuts] [overlapped|vanished|misbehaved] [on narrow windows|in "
        "right-to-left languages|after zooming].",
        "A [memory leak|slow query|race condition] [during long sessions|on large imports|after reconnecting] "
        "was [fixed|removed|resolved].",
    ],
    "release.improved": ["{f} is [faster|quicker|more reliable] and [easier to configure|simpler to set up|"
                         "clearer to use][| for administrators| on small screens]."],
    "release.new": ["{f} is now [generally available|available to every customer|out of preview][| in all "
                    "regions| on every plan]."],
    "release.questions": ["[Questions go|Questions can go|Feedback goes|Comments can be sent] to {m}, [product "
                          "manager|the product manager].",
                          "[For questions about this release|For feedback|If something here is unclear], "
                          "[contact|ask|write to] {m}, [product manager|the product manager]."],
    "digest.none": ["[No incidents were|Nothing was] [recorded|logged|raised] this week[| - a quiet one| across any "
                    "monitored service]."],
    "digest.changes": [
        "[Routine patching|Scheduled patching|Monthly patching] [completed|finished|ran] [on schedule|without "
        "surprises|inside the window].",
        "[No emergency changes were needed|One emergency change was approved and closed cleanly|The change "
        "board met once and approved the standard batch].",
        "[Firmware|Hypervisor|Router] upgrades [went through|were staged|completed] [overnight|at the weekend|"
        "across both data centres].",
        "[Backup restore tests|Capacity checks|Certificate scans] [passed|came back clean|flagged nothing "
        "urgent][| this week| on every tier].",
    ],
    # ------------------------------------------------------------------ cluster pages (shared within a cluster)
    "access.scope": [
        "[Every|Each] active account, [whatever its level of access|privileged or not|human or service], was "
        "[in scope|included|examined].",
    ],
    "access.privileged": ["Privileged accounts were reviewed individually.",
                          "[Privileged|Administrator|High-risk] accounts were [reviewed|checked|examined] "
                          "[individually|one by one|line by line]."],
    "access.owner": ["No privileged account was found without a named owner.",
                     "[Every|Each] privileged account [had|turned out to have] a named owner[| on record]."],
    "access.follow": ["The {team} team confirmed the removals within ten working days.",
                      "The {team} team [confirmed|completed|closed] the removals within [ten|five|fifteen] "
                      "working days."],
    "onboard.week1": [
        "Collect your [badge|access card|equipment] from the service desk[| on day one| before ten].",
        "Complete the mandatory training[| in your first three days| before week two].",
        "[Set up|Configure|Check] [your email signature|multi-factor sign-in|your calendar].",
        "[Join|Subscribe to] the [team channel|department mailing list|company news feed].",
        "[Find|Locate|Visit] [your desk|the nearest fire exit|the kitchen and quiet rooms].",
        "[Order|Request] [an ergonomic chair|a second monitor|a headset] through the facilities form.",
        "[Register|Enrol] for the [pension scheme|cycle-to-work scheme|staff discount portal].",
    ],
    "onboard.week2": [
        "Shadow a team ritual and take notes.",
        "Read the team page and the last three decision records.",
        "[Pair|Sit] with a colleague on a [real ticket|live task|small fix].",
        "[Draft|Write] a [short|one-page] note on what [surprised|confused|impressed] you so far.",
        "[Attend|Join] a [customer call|sprint review|service review] as an observer.",
    ],
    "onboard.month": [
        "Ship a small change or complete a first deliverable.", "Give feedback on this checklist.",
        "[Agree|Set] [goals|objectives] for your first [quarter|six months] with your manager.",
        "[Present|Share] [what you have learned|a short demo|your first results] at a team meeting.",
    ],
    "decision.alt_known": [
        "Build [the capability|it|a solution] in-house[| with the existing team| with two extra hires]",
        "[Buy|Purchase|License] a [vendor product|commercial product|packaged tool][| off the shelf| from an "
        "established supplier]",
        "Defer [the work|the project|delivery] to the [next half-year|next financial year|following planning "
        "round]",
        "Extend the [existing|current] platform[| with new modules| rather than adding another tool]",
    ],
    "decision.rejected": ["[|- too slow|- too costly|- rejected on cost|- rejected on risk|- not ready in time"
                          "|- weak support model|- poor fit with the architecture|- licence terms too rigid|- steep learning curve"
                          "|- patchy documentation|- opaque pricing|- immature ecosystem|- unproven at our scale"
                          "|- onerous indemnity clauses|- brittle integrations|- clunky interface|- sparse user community]"],
    "announce.owner": ["[The {team} team, which owns {sys}, will|As owner of {sys}, the {team} team will|The "
                       "{team} team (owner of {sys}) will] [post updates on the status page|share progress in "
                       "the support channel|send a note when the work is done|keep the status page current]."],
    "announce.maint_title": ["[Planned maintenance|Scheduled downtime|Maintenance window|Heads-up: maintenance|"
                             "Service notice] for {sys}"],
    "announce.project_title": ["[Update on project|News from project|Progress on project|A milestone for "
                               "project|Demo day for project] {p}"],
    "announce.project_news": ["Project {p} is [making good progress|moving quickly|ahead of its plan|past a "
                              "tricky phase] and has [a new demo ready|a working prototype to show|its first "
                              "internal users|a fresh build in the sandbox]."],
    "announce.thanks": ["[Thanks to|Credit goes to|A big thank-you to|Hats off to] {n}, who leads {p}, and the "
                        "[team|whole crew|contributors] for the [hard work|long evenings|careful testing|steady "
                        "progress]."],
    "announce.welcome_title": ["[Welcome and congratulations|Congratulations|Role change|Please welcome|Good "
                               "news|New role]: {n}"],
    **PAGES,
}
for _name, _more in MORE_RENDER.items():  # extra wordings that widen the vocabulary (see phrases_extra)
    R[_name] = R[_name] + _more
