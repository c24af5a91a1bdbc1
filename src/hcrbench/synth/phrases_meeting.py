"""Sentence templates for meeting notes and project documents (``meeting.*``, ``status.*``, ``update.*``,
``charter.*``).

Pure data, part of :data:`hcrbench.synth.phrases_docs.POOLS`; ``[a|b|c]`` groups are expanded per document by
:func:`hcrbench.synth.text.vary`. ``meeting.discussion`` takes ``{a}``, ``{b}`` (attendees), ``{code}`` and
``{goal}`` from the meeting it is rendered into.
"""

from __future__ import annotations

MEETING = {
    "meeting.discussion": [
        "{a} [walked the group through|summarised|gave an update on|reported on] [progress|the latest "
        "progress|where things stand|recent movement] towards the goal to {goal}[, with|, showing|, "
        "sharing|, including] [two items closed|a short demo|the updated burn-down|a revised timeline|the "
        "latest test results].",
        "{a} reported that the [test environment|staging cluster|performance lab|shared sandbox] is "
        "[booked out|fully reserved|oversubscribed|spoken for] for the next [fortnight|two sprints|few "
        "weeks|month] and asked for help [finding more capacity|freeing up slots|sharing the "
        "load|borrowing another environment].",
        "{a} [doubted|questioned whether|was unsure whether|challenged whether] the next "
        "[milestone|checkpoint|delivery date|release target] is [realistic|achievable|still within "
        "reach|safe]; {b} will bring a [revised|fresh|bottom-up|re-baselined] estimate [next time|to the "
        "next session|by the end of the week].",
        "{a} flagged that [two|several|a couple of|three] open questions from [Finance|the budget "
        "office|the commercial team|the controllers] are still [blocking|holding up|delaying|stalling] the "
        "cost model for {code}.",
        "{a} shared early feedback from [pilot users|the first testers|beta participants|early adopters], "
        "[mostly positive|largely upbeat|broadly favourable|encouraging overall] about "
        "[speed|responsiveness|the new layout|search results] and [less so|more critical|lukewarm|mixed] "
        "about [navigation|onboarding|the settings pages|notifications].",
        "{a} proposed [dropping|deferring|parking|descoping] one [low-value|rarely "
        "used|nice-to-have|marginal] feature to protect the [date|launch window|milestone|timeline]; the "
        "group will [decide|settle it|vote|come back to it] next week.",
        "{a} noted that the [hand-over|transition|hand-off] from [design|discovery|architecture|analysis] "
        "to [build|delivery|engineering|implementation] went [more smoothly|far better|with fewer "
        "gaps|faster] than last time.",
        "{a} asked whether {code} needs its own [security review|threat model|privacy "
        "assessment|architecture review] or can [reuse|inherit|lean on|build on] the platform's; {b} will "
        "[check|find out|ask the reviewers|confirm].",
        "{a} raised concerns about [support readiness|operational readiness|training gaps|knowledge-base "
        "coverage] and suggested [a training session|a dry run|shadowing shifts|a walkthrough for the "
        "service desk] before [launch|go-live|the first wave|the switchover].",
        "{a} confirmed that the [vendor|supplier|contractor|integration partner] has agreed to the "
        "[revised|updated|amended|new] [delivery dates|milestones|acceptance terms|payment schedule] [in "
        "writing|by email|in a signed letter|in the latest contract note].",
        "{a} summarised the themes from the last retrospective: [fewer meetings|shorter meetings|less "
        "context switching|protected focus time], [clearer acceptance criteria|sharper "
        "requirements|smaller tickets|earlier test data] and [better hand-offs|more pairing|quieter "
        "Fridays|shorter review queues].",
        "{a} asked for the dependency on the [data team|platform group|integration work|reporting stream] "
        "to be made [visible|explicit|clearer|more prominent] on the plan, and {b} "
        "[agreed|offered|promised|volunteered] to add it [this week|before the next session|to the "
        "timeline|with a date].",
        "{a} reminded everyone that the goal is to {goal}, and that anything outside it [waits for|belongs "
        "in|is parked until|moves to] the next [phase|release|planning round|stage] [unless the sponsor "
        "says otherwise|as agreed at kick-off|by default|without exception].",
        "{a} presented [three|two|four|several] options for the [migration sequence|release order|cut-over "
        "plan|data load]; the group preferred the [lowest-risk|simplest|most reversible|least disruptive] "
        "one.",
        "{a} reported that recruitment for the open [engineering|analyst|design|testing] role [in the "
        "team|on the project|for the workstream|in the squad] has reached [final interviews|the shortlist "
        "stage|offer stage|second-round interviews].",
        "{a} suggested [recording|filming|streaming|capturing] the demo so that colleagues [in other time "
        "zones|on leave|in the field|on early shifts] can [watch it|catch up|see it later|follow along].",
        "{a} and {b} will pair on the [cut-over checklist|launch runbook|go-live plan|test script] [before "
        "the next session|this week|on Thursday|ahead of the dry run] and [share it|circulate a "
        "draft|report back|post it in the channel] [afterwards|with the group|by Friday|for comments].",
        "{a} [pointed out|noticed|highlighted|mentioned] that [defect|bug|open issue|ticket] counts for "
        "{code} have [dropped|fallen|come down|halved] since the [last|previous|most recent] "
        "[sync|review|checkpoint].",
        "{a} [asked|wondered|queried] whether the [risk log|decision log|action tracker|plan] is still "
        "[current|accurate|complete|being used], and {b} [offered|volunteered|agreed] to "
        "[tidy|refresh|prune|update] it.",
    ],
    "meeting.went_well": [
        "[Pairing|Working side by side|Joint debugging|Shared on-screen sessions] across teams "
        "[cut|shortened|reduced|halved] the time to [resolve blockers|unblock work|close questions|settle "
        "disagreements].",
        "The [demo|showcase|walkthrough|preview] to [stakeholders|sponsors|users|the wider department] "
        "[landed well|went down well|was well received|drew good questions] and "
        "[produced|generated|surfaced|brought] [useful feedback|concrete suggestions|two new ideas|honest "
        "reactions].",
        "[Daily stand-ups|Morning check-ins|Short syncs|Our stand-ups] [stayed|kept|remained|finished] "
        "[under fifteen minutes|crisp|focused|on time] [most days|all iteration|almost every "
        "day|throughout].",
        "[Requirements|User stories|Acceptance criteria|Specifications] were [clearer|better written|more "
        "complete|easier to test] than in the [previous|last|prior|earlier] [iteration|cycle|sprint].",
        "The team [hit|met|delivered|honoured] [every|nearly every|each|all but one] "
        "[commitment|goal|promise|planned item] [it made|it set|it agreed|it took on] for the "
        "[iteration|sprint|cycle].",
        "[Test automation|The regression suite|Automated checks|Nightly builds] "
        "[caught|flagged|stopped|intercepted] [two|several|three|a couple of] [regressions|breaking "
        "changes|defects|bugs] before they [reached|hit|got to|landed in] [staging|the test "
        "environment|users|acceptance testing].",
        "[New joiners|Recent hires|The newest colleagues|Contractors who joined] [picked up|took on|got "
        "through|shipped] [real work|their first tickets|a feature|meaningful changes] [within days|in "
        "their first week|quickly|without hand-holding].",
        "[Decisions|Trade-offs|Priority calls|Scope questions] were [made|settled|taken|resolved] "
        "[quickly|in the room|without long threads|on the same day] because the [product "
        "owner|sponsor|decision-maker|lead] was [available|present|on hand|reachable].",
        "[Help pages|Notes|Design records|Runbooks] were [written|updated|kept current|finished] "
        "[alongside|together with|as part of|during] the [work|build|changes|tickets], not [afterwards|at "
        "the end|as an afterthought].",
        "[Customer|User|Stakeholder|Support] [questions|complaints|requests|escalations] were "
        "[answered|handled|routed|closed] [faster|sooner|more calmly|more consistently] [thanks to|because "
        "of|with the help of|through] the [new|shared|updated|agreed] [triage rota|FAQ|intake "
        "form|response templates].",
        "[Cross-team|Joint|Shared|Combined] [planning|estimation|design reviews|demos] "
        "[surfaced|caught|revealed|flagged] [dependencies|conflicts|clashes|overlaps] [early|weeks "
        "ahead|before they hurt|in good time].",
    ],
    "meeting.improve": [
        "Too many [urgent|unplanned|last-minute|ad hoc] requests [arrived|came in|landed|slipped in] "
        "[outside|around|past|bypassing] the [planning process|intake route|agreed backlog|prioritisation "
        "meeting].",
        "[Acceptance criteria|Definitions of done|Test expectations|Story descriptions] were still "
        "[vague|thin|ambiguous|missing] for [a few|several|some|too many] [stories|tickets|items|tasks].",
        "[Reviews|Change approvals|Sign-offs|Peer checks] [waited|sat|lingered|queued] too long for a "
        "[second|senior|specialist|final] [approver|reviewer|signature|opinion].",
        "[Meetings|Calls|Status sessions|Recurring invites] [spilled into|ate into|crowded out|broke up] "
        "[focus time|deep-work blocks|quiet hours|heads-down time] on [Tuesdays and Thursdays|most "
        "afternoons|Mondays|busy weeks].",
        "[Estimates|Plans|Forecasts|Capacity figures] [ignored|left out|underplayed|did not include] [time "
        "spent|hours lost|effort] on [support questions|interruptions|unplanned fixes|recruiting "
        "interviews].",
        "The [hand-off|handover|transfer|knowledge transfer] to [operations|support|the service desk|the "
        "run team] [came|happened|arrived|was arranged] too [late in the cycle|close to launch|near the "
        "end of the release|late in the project].",
        "[Test data|Sample records|Environments|Access rights] were [not ready|missing|incomplete|delayed] "
        "when [testing|work|the sprint|development] [started|began|needed them|kicked off].",
        "[Work in progress|Open items|Parallel tasks|Half-finished tickets] [piled up|grew|built "
        "up|multiplied]; [limits on it|a cap|a WIP limit|finishing before starting] would [help|speed "
        "things up|cut waiting|reduce context switching].",
        "[Chat threads|Message channels|Email chains|Side conversations] [replaced|stood in for|took the "
        "place of|crowded out] [written decisions|the decision log|proper notes|tickets], so "
        "[context|reasons|history|agreements] [got lost|were hard to find|went missing|faded].",
        "[Onboarding|Access requests|Environment set-up|Tool licences] for [new joiners|contractors|new "
        "team members|temporary staff] took [days|far too long|most of a week|several attempts] [to sort "
        "out|to arrange|to complete|to get right].",
        "[Dashboards|Reports|Metrics|Status pages] [showed|gave|reported|displayed] "
        "[conflicting|stale|confusing|incomplete] [numbers|figures|signals|pictures], so "
        "[discussions|reviews|planning|decisions] [began|started|opened|got stuck] with "
        "[arguments|debates|questions|disputes] about [the data|which figure was right|the source|the "
        "definitions].",
    ],
    "meeting.risks": [
        "[Key-person dependency|Single-expert risk|Bus-factor risk|Concentrated know-how]: only [one|a "
        "single|one senior] [engineer|analyst|contractor|specialist] [understands|knows|can safely "
        "change|can support] the [legacy interface|old batch job|mainframe extract|custom integration].",
        "The [vendor|supplier|licence|support] [contract renewal|agreement|term|subscription] "
        "[falls|lands|expires|comes up] [in the middle of|during|right before|just after] the [launch "
        "window|go-live|cut-over|busiest month].",
        "[Late|Unplanned|Last-minute|Unexpected] [changes|requests|scope additions|requirement shifts] "
        "from [stakeholders|senior sponsors|partner teams|customers] could [push|delay|slip|endanger] the "
        "next [milestone|release|checkpoint|delivery].",
        "[Performance|Behaviour|Stability|Response time] under [peak|heavy|month-end|seasonal] "
        "[load|traffic|volumes|demand] has not been [tested|measured|rehearsed|proven] [yet|so far|at "
        "scale|in a realistic setting].",
        "[Data quality|Record completeness|Reference data|Address data] in the [source system|legacy "
        "database|upstream feed|old archive] is [worse|patchier|messier|less consistent] than "
        "[assumed|planned|expected|estimated].",
        "[Holiday season|The summer break|Year-end leave|Public holidays] [reduces|cuts|shrinks|eats into] "
        "[available capacity|team availability|testing time|reviewer time] by [about a third|roughly a "
        "quarter|nearly half|a noticeable margin].",
        "[Competing|Overlapping|Parallel|Conflicting] [programmes|initiatives|projects|change freezes] "
        "[draw on|need|compete for|tie up] the [same|few|scarce|shared] "
        "[specialists|testers|environments|release slots].",
        "[Security|Accessibility|Privacy|Penetration] [testing|findings|assessments|reviews] "
        "[could|may|might] [reveal|uncover|surface|force] [rework|late fixes|design changes|extra effort] "
        "close to [launch|go-live|release|the deadline].",
        "[Exchange rates|Hardware lead times|Licence costs|Contractor rates] [could|may|might] "
        "[move|shift|rise|fluctuate] [enough|sufficiently|far enough] to [strain|stretch|threaten|reopen] "
        "the [budget|cost plan|business case|forecast].",
        "[Decision-making|Approval|Sign-off|Escalation] [slows|stalls|drags|gets stuck] when the "
        "[sponsor|budget holder|approver|steering chair] is [travelling|unavailable|away|double-booked].",
        "[Training|Change management|User communication|Readiness work] is [under-resourced|behind "
        "plan|unassigned|not yet scoped] for the [second|final|largest|busiest] [wave|phase|group|region].",
        "[Licence|Seat|Capacity|Storage] [limits|quotas|caps|allowances] [could|may|might] [run out|be "
        "reached|be exceeded|bite] [before|ahead of|well before|prior to] the [renewal|budget cycle|next "
        "purchase|contract review], [forcing|leading to|triggering|causing] [an unplanned|an urgent|an "
        "awkward|a costly] [purchase|request|negotiation|trade-off].",
        "[Scope creep|Gold-plating|Feature requests|Nice-to-haves] [from|raised by|pushed by|coming from] "
        "[enthusiastic|senior|vocal|new] [stakeholders|users|sponsors|teams] [could eat into|may "
        "threaten|could swallow|might absorb] the [buffer|contingency|spare capacity|slack] "
        "[kept|held|reserved|set aside] for [testing|fixes|stabilisation|hardening].",
    ],
    "meeting.priorities": [
        "[Finish|Complete|Wrap up|Land] the [integration work|API changes|data mapping|connector build] "
        "before [starting|picking up|opening|taking on] anything new.",
        "[Close|Resolve|Fix|Clear] the [outstanding|open|remaining|high-rated] [security findings|audit "
        "points|penetration-test issues|vulnerability tickets] [this sprint|first|before launch|within two "
        "weeks].",
        "[Prepare|Draft|Pull together|Polish] the [material|slides|report|pack] for the next [steering "
        "meeting|sponsor review|board update|portfolio checkpoint].",
        "[Get|Secure|Obtain|Agree] [sign-off|approval|agreement|a decision] on the [test strategy|release "
        "plan|support model|data migration approach].",
        "[Reduce|Bring|Cut|Get] the [bug backlog|defect list|open issue count|ticket queue] "
        "[below|under|down to fewer than] [twenty|thirty|fifteen|forty] [open items|items|entries|tickets].",
        "[Agree|Confirm|Rehearse|Finalise] the [cut-over plan|go-live checklist|switchover sequence|launch "
        "runbook] with [operations|support|the service desk|the run team].",
        "[Automate|Script|Streamline|Simplify] the [release steps|environment scripts|test data "
        "refreshes|build jobs] that still [need|require|depend on|rely on] [manual work|hand edits|one "
        "person|a checklist].",
        "[Write|Publish|Update|Review] the [user guide|help articles|FAQ|training videos] [ahead "
        "of|before|in time for|well before] the [pilot|launch|first wave|go-live].",
        "[Hire|Onboard|Bring in|Backfill] [the open|a missing|one more|a second] "
        "[engineer|tester|designer|analyst] [so|so that] the team [stops|is no longer|avoids] [relying "
        "on|depending on|leaning on] [overtime|contractors|a single expert|goodwill].",
        "[Measure|Track|Baseline|Chart] [cycle time|lead time|throughput|escaped defects] [so that|so] the "
        "[next|following|coming] [retrospective|review|planning round] can [compare|judge|see|discuss] "
        "[progress|the trend|real change|improvement].",
        "[Retire|Switch off|Decommission|Remove] [one|two|the last|a few] [legacy|duplicate|unused|old] "
        "[reports|jobs|servers|environments] [so|so that] [running costs|maintenance hours|licence "
        "fees|support tickets] [drop|fall|shrink|go down] [this quarter|before year-end|as "
        "planned|visibly].",
        "[Interview|Survey|Observe|Talk to] [five|ten|a handful of|several] [users|customers|frontline "
        "staff|administrators] [before|ahead of|prior to] [designing|committing to|building|scoping] the "
        "[next|second|following|larger] [increment|phase|release|feature set].",
    ],
    "meeting.questions": [
        "Do we need a [second|separate|larger|more diverse] [pilot group|trial cohort|test "
        "population|early access group] before the [wider|full|company-wide|general] "
        "[launch|release|go-live|availability]?",
        "Who [signs off|approves|accepts|validates] the [test results|acceptance tests|go-live "
        "criteria|readiness checklist] if the [sponsor|product owner|approver|steering chair] is "
        "[away|unavailable|on leave|travelling]?",
        "Can the [support team|service desk|helpdesk|operations team] [absorb|handle|cope with|take on] "
        "the [extra|additional|expected|higher] [volume|ticket load|call traffic|demand] in the first "
        "[month|weeks|quarter|few weeks]?",
        "Should the [budget view|cost report|forecast|spend dashboard] [include|show|account for|break "
        "out] the [vendor's|supplier's|partner's|contractor's] [optional services|extras|support "
        "tiers|training fees]?",
        "Is the [current|planned|agreed|existing] [milestone order|release sequence|phase plan|delivery "
        "order] still the [right|best|most sensible|safest] one?",
        "What is the [fallback|plan B|contingency|back-out option] if the "
        "[vendor|supplier|partner|contractor] [misses|slips|fails to hit|cannot make] the next "
        "[date|deadline|delivery|checkpoint]?",
        "How will we [know|tell|measure|prove] that the [change|new process|release|pilot] "
        "[worked|succeeded|delivered value|paid off] [after|within|by the end of|over] the first "
        "[quarter|month|season|ninety days]?",
        "Which [reports|dashboards|integrations|spreadsheets] [break|stop working|need rework|must be "
        "rebuilt] when the [old|legacy|current|existing] [system|database|interface|feed] is "
        "[retired|switched off|decommissioned|frozen]?",
        "Who [owns|looks after|maintains|is accountable for] the [new|shared|central|combined] [data "
        "model|reference data|configuration|templates] once the [project|programme|initiative|work] "
        "[closes|ends|hands over|winds down]?",
        "[Do|Should] we [freeze|pause|limit|restrict] [other|unrelated|non-urgent|parallel] "
        "[changes|releases|updates|configuration edits] [during|around|for the duration of|ahead of] the "
        "[cut-over|launch week|migration window|go-live]?",
        "Are the [training materials|help articles|user guides|walkthrough videos] "
        "[ready|complete|translated|reviewed] for [every|each|every single|each remaining] "
        "[region|team|user group|language]?",
        "[What|Which] [metrics|signals|thresholds|numbers] would [trigger|justify|force|prompt] a "
        "[rollback|pause|change of course|second look] [after|during|in the first week of] the "
        "[launch|release|pilot|switchover]?",
        "Is there [enough|sufficient|adequate|realistic] [contingency|slack|buffer|float] in the "
        "[plan|schedule|budget|timeline] for [another|one more|an extra|a further] "
        "[round|cycle|iteration|pass] of [testing|fixes|feedback|review]?",
        "How do we [handle|treat|deal with|resolve] [requests|feature asks|change requests|exceptions] "
        "that [arrive|come in|turn up|land] [after|past|beyond] the [scope freeze|cut-off|design "
        "sign-off|planning deadline]?",
        "[Would|Could|Should] a [shorter|lighter|slimmer|phased] [first release|initial scope|minimum "
        "version|launch] [reduce|lower|cut|contain] the [risk|exposure|pressure|uncertainty] "
        "[enough|meaningfully|in a useful way]?",
        "Who [tells|informs|briefs|updates] [customers|partners|the sales team|account managers] "
        "[about|of] the [change|new dates|revised plan|timing], and [when|how soon|through which channel]?",
        "Do the [legal|privacy|security|accessibility] [reviewers|advisers|specialists|colleagues] need to "
        "[see|check|approve|comment on] the [final|revised|latest|updated] [design|wording|data "
        "flows|screens] [again|once more|before launch|first]?",
        "[What|How much] [effort|time|money|capacity] [goes|is going|will go] into [maintenance|running "
        "costs|support|upkeep] [once|after|when] the [project team|core team|build team|programme team] "
        "[disbands|moves on|hands over|steps away]?",
        "[Who|Which team|Which role|Who exactly] [keeps|maintains|updates|curates] the [runbooks|help "
        "articles|FAQ|support scripts] [after|once|when|as soon as] the [first|initial|pilot|launch] "
        "[month|wave|phase|fortnight] [is over|has passed|ends|is complete]?",
        "[Can|Could|Should|Will] [existing|current|legacy|older] [reports|dashboards|exports|scheduled "
        "jobs] [keep running|stay live|be kept|run in parallel] [during|through|across|for the length of] "
        "the [transition|switchover|migration|pilot]?",
        "[How|Where|When] do we [record|log|capture|document] [decisions|trade-offs|agreed "
        "changes|exceptions] [made|taken|agreed|settled] [in|during|outside|between] [these|the weekly|the "
        "steering|ad hoc] [meetings|sessions|calls|conversations]?",
        "[Is|Would|Could] [one|a single|another|an extra] [test cycle|dress rehearsal|pilot week|dry run] "
        "[be|prove] [enough|sufficient|adequate|worth the time] to [catch|surface|flush out|spot] the "
        "[remaining|last|outstanding|late] [defects|edge cases|integration issues|data errors]?",
    ],
    "status.highlights": [
        "[User acceptance testing|End-to-end testing|The pilot|The beta programme] [started|began|kicked "
        "off|opened] [on schedule|as planned|on the agreed date|without delay].",
        "The [architecture review|design authority review|security assessment|technical review] "
        "[closed|finished|concluded|wrapped up] with [no blocking findings|only minor comments|two small "
        "actions|a clean result].",
        "[Two|Three|Several|Four] more [teams|departments|business units|regional offices] [signed up "
        "for|joined|asked to join|enrolled in] the [pilot|trial|early access group|beta].",
        "The [backlog|roadmap|release plan|feature list] was [re-prioritised|reordered|trimmed|reworked] "
        "with the [sponsor|product owner|steering group|business lead].",
        "[Integration tests|Regression tests|Contract tests|Smoke tests] now run "
        "[automatically|unattended|in the pipeline|on a schedule] on [every change|each merge|every "
        "build|each commit].",
        "The [vendor|supplier|contractor|partner] [delivered|shipped|handed over|released] the [first "
        "build|initial drop|first increment|early version] [a week early|ahead of plan|on time|with fewer "
        "defects than expected].",
        "[Training material|Help content|Knowledge-base articles|Quick-reference guides] for [support "
        "staff|the service desk|frontline teams|super-users] [is in draft|is being reviewed|went to "
        "review|was published].",
        "[Data migration|The first data load|A trial migration|The dress rehearsal] "
        "[completed|ran|finished|succeeded] [with|showing] [fewer|only a handful of|no|very few] [rejected "
        "records|errors|mismatches|exceptions].",
        "[Page load times|Response times|Report run times|Batch durations] [improved|dropped|fell|shrank] "
        "[noticeably|sharply|by about half|well below target] after the [tuning|caching|indexing|query] "
        "[work|changes|sprint|fixes].",
        "[Comments|Survey results|Interview notes|Usability findings] from [pilot users|early "
        "adopters|testers|the first cohort] were [mostly positive|encouraging|largely "
        "favourable|constructive] and [fed|went|flowed|were turned] into the [next "
        "iteration|backlog|design update|release plan].",
        "[Accessibility|Usability|Load|Failover] [checks|tests|audits|drills] "
        "[passed|completed|concluded|were signed off] [with|after] [minor|a few small|no serious|only "
        "cosmetic] [findings|issues|comments|defects].",
        "[Cloud|Licence|Hosting|Tooling] [costs|spend|bills|charges] [came in|landed|finished|were "
        "tracked] [below|under|within|close to] [forecast|plan|budget|the estimate] [thanks to|because "
        "of|after|following] [rightsizing|reserved capacity|a renegotiated rate|clean-up of idle "
        "resources].",
        "[A key|The main|A long-standing|The largest] [blocker|dependency|open risk|technical debt item] "
        "[was cleared|was retired|got resolved|was closed] [after|following|through|thanks to] [joint "
        "work|a workshop|a spike|an escalation] [with|alongside|involving|together with] [a partner "
        "team|the vendor|the platform group|the data stewards].",
    ],
    "status.dependencies": [
        "[Platform|Network|Infrastructure|Hosting] [changes|upgrades|capacity|work] from the "
        "[infrastructure|platform|hosting|operations] [teams|group|specialists|colleagues] [are "
        "needed|must land|have to be in place|are required] before the next milestone.",
        "The [data migration|cut-over|historical load|archive transfer] [depends on|needs|relies on|waits "
        "for] a [freeze window|quiet period|change freeze|maintenance slot] "
        "[agreed|arranged|negotiated|booked] with [Finance|the controllers|the accounting team|the "
        "month-end team].",
        "[Security|Privacy|Risk|Architecture] [sign-off|approval|clearance|review] is "
        "[required|needed|mandatory|expected] before [any|the first|a wider|the next] [external "
        "pilot|customer trial|public preview|partner test].",
        "The [legal|contractual|commercial|regulatory] review of the [updated|revised|new|amended] "
        "[customer terms|order forms|data processing terms|service schedule] is [still pending|in "
        "progress|not yet started|waiting for comments].",
        "[Support readiness|Service desk readiness|Go-live support|Operational handover] [depends "
        "on|hinges on|relies on|waits for] the [knowledge-base articles|support scripts|escalation "
        "paths|runbooks] being [published|finished|approved|tested].",
        "[A partner|An external supplier|A third-party provider|An integration vendor] [must|has to|needs "
        "to|is expected to] [deliver|release|certify|expose] a [new API version|connector update|test "
        "endpoint|sandbox account] [first|before we can continue|ahead of integration testing].",
        "[Servers|Licences|Network links|Test devices] [ordered|requested|bought|reserved] for the "
        "[project|pilot|next phase|test lab] [have not arrived|are delayed|are stuck in approval|are still "
        "on back order].",
        "[Reference data|Master data|Product codes|Cost-centre mappings] [from|owned by|maintained "
        "by|supplied by] [another team|a sister department|the finance systems group|the data stewards] "
        "[must be|must first be|will need to be|should be] [cleaned|agreed|refreshed|published] before "
        "[testing|migration|reconciliation|the load] [can start|continues|is meaningful].",
        "[Training rooms|Trainers|Super-users|Change champions] [must|need to|have to] be "
        "[booked|confirmed|trained|available] [in each region|at every site|in time for the first "
        "wave|before go-live].",
        "[Purchase-order|Purchasing|Contract approval|Vendor onboarding] [forms|steps|checks|sign-offs] "
        "for the [new|additional|second|extended] [supplier|licence|contract|service] "
        "[are|remain|sit|stay] [open|outstanding|in the queue|with the buying team].",
        "[Another|A neighbouring|A sister|A partner] [programme's|team's|project's|department's] "
        "[release|migration|freeze|reorganisation] [must|has to|needs to|should] "
        "[finish|land|complete|settle] [first|beforehand|before ours|ahead of us], [so|which "
        "means|meaning] [our|the next] [dates|milestones|plans|steps] [follow|track|depend on|trail] "
        "[theirs|its outcome|their schedule|that timeline].",
    ],
    "update.notes": [
        "The [demo recording|walkthrough video|session recording|screen capture] is "
        "[linked|available|posted|stored] [from|in|on] the [project space|team page|shared drive|project "
        "channel].",
        "[Testing|Quality work|The test team's|Verification] focus [this month|for the coming weeks|in "
        "this cycle|until the next checkpoint] is [performance under load|accessibility|mobile "
        "behaviour|data accuracy|failover behaviour], with [results|findings|a summary|daily notes] "
        "[posted|shared|logged] in the [project channel|test report|tracker].",
        "[Two|Three|A few|Several] [open defects|known bugs|outstanding issues|high-priority tickets] are "
        "being [fixed|worked on|addressed|retested] before the next [checkpoint|release|review|demo].",
        "The [working group|design forum|user panel|review circle] meets on [Tuesdays|Wednesdays|Thursday "
        "mornings|alternate Mondays] and [welcomes|is open to|invites|would love more] "
        "[observers|newcomers|guests|curious colleagues].",
        "[Support staff|The service desk|Frontline colleagues|Super-users] will get a "
        "[walkthrough|briefing|hands-on session|guided tour] before anything [goes live|ships|reaches "
        "users|is switched on].",
        "[Design mock-ups|Wireframes|Prototype screens|Draft layouts] for the [next|upcoming|second|final] "
        "[phase|release|increment|iteration] are [open for comments|ready for review|pinned in the "
        "channel|shared for feedback] [until Friday|this week|for the next fortnight|until the next "
        "checkpoint].",
        "[A short|A quick|An anonymous|A five-minute] [survey|poll|questionnaire|feedback form] for [pilot "
        "users|testers|early adopters|volunteers] [closes|ends|wraps up|shuts] [at the end of the "
        "month|next Friday|after the next demo|in two weeks].",
        "The [glossary|FAQ|decision log|risk register] [has been|was|got] [refreshed|expanded|cleaned "
        "up|brought up to date] [with|to include|to cover|adding] [recent|new|the latest|this month's] "
        "[terms|questions|decisions|entries].",
        "[Office hours|Drop-in sessions|Open clinics|Ask-me-anything slots] with the [project team|core "
        "team|leads|architects] [continue|carry on|run|are held] [every other week|on Thursday "
        "afternoons|twice a month|weekly] for [questions|anyone curious|feedback|ideas].",
        "[Costs|Actual costs|Monthly costs|Project costs] [remain|stay|are tracking|sit] "
        "[within|inside|close to|slightly under] the [approved|agreed|current|forecast] "
        "[envelope|budget|range|plan] [for the quarter|this month|so far|year to date].",
        "[A new|An updated|A revised|A simplified] [onboarding guide|contributor guide|how-to "
        "page|quick-start note] [explains|describes|covers|walks through] how [other "
        "teams|newcomers|contributors|volunteers] can [help|get involved|test early builds|share ideas].",
        "[Lessons|Notes|Takeaways|Observations] from the [last|recent|previous|latest] [pilot "
        "wave|sprint|dry run|user session] are [written up|summarised|collected|captured] in the [project "
        "space|retrospective page|shared notes|team wiki].",
        "[Several|A few|Two|Three] [colleagues|volunteers|people from other teams|new contributors] "
        "[joined|helped with|stepped into|lent a hand with] [testing|documentation|translation|data "
        "checks] this [month|period|cycle|sprint], which [sped things up|made a real difference|eased the "
        "load|was much appreciated].",
        "[Environment|Sandbox|Staging|Test-system] [access|accounts|permissions|credentials] for the "
        "[next|coming|following] [round|wave|phase|cycle] can be [requested|arranged|set up|ordered] "
        "through the [usual|normal|standard|self-service] [form|portal|request route|catalogue item].",
        "[Minor|Small|Cosmetic|Low-risk] [fixes|tweaks|improvements|corrections] to [labels|layouts|error "
        "messages|email templates] [shipped|went out|were released|landed] [quietly|this month|last "
        "week|alongside the main work].",
        "[Accessibility|Localisation|Performance|Security] [fixes|improvements|checks|reviews] [picked "
        "up|identified|found|raised] [during|in|through|from] the [audit|pilot|last round of "
        "testing|external review] are [tracked|scheduled|prioritised|listed] [on the board|in the "
        "backlog|for the next sprint|in the release plan].",
        "[Next month|The coming weeks|The next cycle|The following sprint] [brings|will bring|includes|is "
        "set aside for] [the first|a second|a larger|a wider] [data load|pilot wave|integration test|user "
        "trial], [subject to|depending on|pending|assuming] [sign-off|a go decision|the readiness "
        "check|sponsor approval].",
        "[Release notes|Change summaries|Short changelogs|Plain-language notes] for [each|every] "
        "[build|drop|increment|version] are [posted|published|kept|written up] [in the project space|on "
        "the wiki|in the channel|on the team page] [so|so that] [testers|support colleagues|pilot "
        "users|stakeholders] [know|can see|can check|understand] what [changed|moved|is new|was fixed].",
        "[A glossary|An acronym list|A who-does-what page|A map of the workstreams] [was|has been|got] "
        "[added|published|drafted|created] for [newcomers|new joiners|colleagues from other "
        "teams|visitors] [after|following|because of|prompted by] [several|repeated|a few|many] "
        "[questions|requests|confused messages|comments] [in the channel|at the demo|during onboarding|in "
        "the last survey].",
        "[Risk|Issue|Dependency|Assumption] [owners|holders|leads|contacts] "
        "[refreshed|reviewed|updated|re-scored] their [entries|items|ratings|notes] [this month|at the "
        "checkpoint|after the steering meeting|last week], and [two|three|a few|several] [were "
        "closed|dropped off the list|were downgraded|were merged].",
    ],
    "charter.out_of_scope": [
        "[Changes|Adjustments|Revisions|Updates] to [pricing|packaging|discount rules|price lists] [in any "
        "market|for existing customers|during the project|beyond what the launch needs].",
        "[Migrating|Moving|Converting|Transferring] [historical|archived|legacy|closed] "
        "[data|records|transactions|cases] older than [seven|five|ten|six] years.",
        "[New features|Enhancements|Extra capabilities|Additional reports] "
        "[requested|raised|proposed|asked for] after the [scope freeze|design sign-off|requirements "
        "cut-off|baseline date].",
        "[Replacing|Rebuilding|Redesigning|Re-platforming] the [reporting front end|analytics "
        "layer|dashboard suite|document templates], which is a [separate|distinct|later|parallel] "
        "[initiative|project|workstream|piece of work].",
        "[Support for|Testing on|Compatibility with|Fixes for] [legacy browsers|old mobile operating "
        "systems|unsupported devices|retired client versions] [beyond the agreed support matrix|that the "
        "vendor no longer patches|outside the standard build|listed as end of life].",
        "[Any change|Changes|Amendments|Renegotiation] to [customer contracts|supplier agreements|service "
        "terms|partner agreements] [or their renewal dates|and their pricing schedules|agreed before the "
        "project started|unless legally required].",
        "[Organisational|Reporting-line|Role|Team-structure] [changes|redesign|restructuring|moves] "
        "[arising from|linked to|triggered by|following] the [new process|new tooling|project|programme].",
        "[Hardware refresh|Office fit-out|Network upgrades|Telephony changes] [at|for|across|in] [branch "
        "sites|regional offices|the warehouses|partner locations].",
        "[Translation|Localisation|Regional adaptation|Right-to-left layouts] [for|into|of the interface "
        "for] [languages|markets|locales|regions] [beyond|other than|outside|besides] the "
        "[launch|initial|first|pilot] [set|group|wave|list].",
        "[Integration with|Connectors for|Data feeds to|Single sign-on for] [external partners'|customers' "
        "own|franchisees'|suppliers'] [systems|portals|platforms|tools].",
    ],
    "charter.assumptions": [
        "[Core team members|Named contributors|Key specialists|Workstream leads] can "
        "[commit|dedicate|give|set aside] at least [eighty|seventy|sixty|ninety] percent of their time.",
        "The [current|existing|signed|present] [vendor contract|supplier agreement|licence "
        "agreement|support contract] [remains|stays|continues|is] in place for the [duration|whole "
        "project|full term|life of the programme].",
        "No [major|large|significant|wide-ranging] [reorganisation|restructuring|leadership change|merger] "
        "[affects|disrupts|touches|reshapes] the [teams|departments|groups|people] involved.",
        "[Test environments|Sandboxes|Staging systems|Integration environments] are "
        "[available|ready|provisioned|handed over] from the [second|third|first|early part of the second] "
        "month.",
        "[Budget|Funding|Spend approval|Money] is [released|unlocked|granted|made available] in "
        "[quarterly|phased|staged|milestone-based] [tranches|instalments|amounts|steps] after each [phase "
        "gate|checkpoint|review|milestone].",
        "[Business users|Subject-matter experts|Process owners|Frontline staff] [can|will be able to|are "
        "free to|will] [join|attend|take part in|contribute to] [workshops|testing|design "
        "sessions|acceptance checks] [when|as|whenever] [needed|asked|scheduled|required].",
        "[Source data|Existing records|Legacy extracts|Reference tables] are "
        "[complete|reliable|well-documented|accessible] enough to [migrate|load|reconcile|map] without "
        "[major|extensive|large-scale|manual] [clean-up|rework|correction|intervention].",
        "[Regulations|Industry rules|Compliance requirements|Reporting standards] "
        "[affecting|covering|relevant to|that apply to] the [work|scope|solution|project] do not "
        "[change|shift|tighten|move] [materially|significantly|much|substantially] during [delivery|the "
        "project|the build|the programme].",
        "[Existing|Current|Standard|Approved] [tooling|licences|infrastructure|platforms] [can|will be "
        "able to|are sufficient to|are expected to] [support|carry|host|absorb] the [work|new "
        "load|pilot|solution] [without|with no|free of] [new|extra|additional|unplanned] "
        "[purchases|spend|contracts|hardware].",
        "[Sponsors|Decision-makers|Approvers|Steering members] [respond|decide|sign off|give feedback] "
        "[within|inside|in no more than|by the end of] [five|ten|three|seven] working days "
        "[when|whenever|once|after] [asked|a decision is needed|a paper is circulated|a request comes in].",
    ],
    "charter.governance": [
        "A [steering group|project board|sponsor group|governance forum] [meets|convenes|sits|gathers] "
        "[monthly|every four weeks|once a month|at each phase end] to [review|examine|check|discuss] "
        "[progress|milestones|delivery], [risks|issues|concerns] and [spend|costs|budget].",
        "[Phase gates|Stage gates|Checkpoints|Milestone reviews] [require|need|depend on|call for] "
        "[sign-off|approval|agreement|a formal decision] from the [sponsor|project board|budget "
        "holder|steering group] before the next [phase|stage|step|tranche] [starts|begins|opens|is funded].",
        "[Weekly|Fortnightly|Regular|Open] [working sessions|design clinics|planning meetings|stand-ups] "
        "are [open|available|accessible] to [anyone|everyone|any colleague|all staff] [affected "
        "by|interested in|touched by|involved in] the [change|work|project|programme].",
        "The [project lead|programme manager|delivery lead|project manager] "
        "[reports|presents|summarises|shares] [status|progress|the RAG rating|key figures] in the "
        "[portfolio review|monthly portfolio meeting|programme board|operating review] every month.",
        "[Escalations|Blocking issues|Disputes|Unresolved risks] go first to the [sponsor|project "
        "board|steering chair|budget holder] and then to the [executive committee|leadership "
        "team|management board|operating committee].",
        "[Changes|Requests|Amendments|Variations] to [scope|budget|timeline|deliverables] [follow|go "
        "through|use|pass through] a [light|written|formal|documented] "
        "[change-control|change-request|approval|decision] [process|route|procedure|step] with [an impact "
        "note|a cost estimate|a risk assessment|a short rationale].",
        "[A risk log|A decision log|An issue register|An action tracker] is "
        "[kept|maintained|updated|reviewed] [weekly|at every session|continuously|every fortnight] and "
        "[visible|open|readable|available] to [the whole team|all contributors|every stakeholder|anyone "
        "involved].",
        "[Benefits|Outcomes|Results|Value] are [tracked|measured|reviewed|reported] "
        "[for|during|over|across] [six months|a year|two quarters|the first year] after "
        "[closure|go-live|hand-over|completion] by the [sponsor|business owner|receiving team|benefits "
        "owner].",
        "[Lessons learned|Retrospective findings|Closure notes|Post-project reviews] are [captured|written "
        "up|recorded|shared] [at each phase end|at closure|after every gate|at the end] and [passed "
        "on|handed|made available|offered] to [future projects|the portfolio office|similar "
        "initiatives|other programmes].",
        "[Conflicts|Overlaps|Clashes|Interdependencies] with [other|related|neighbouring|parallel] "
        "[projects|programmes|initiatives|workstreams] are [raised|tabled|discussed|resolved] "
        "[at|in|through] the [portfolio review|architecture board|planning forum|programme board].",
    ],
}
