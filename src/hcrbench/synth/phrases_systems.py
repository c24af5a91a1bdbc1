"""Sentence templates for system, engineering-process, product and team pages and the clustered document types
(``system.*``, ``engproc.*``, ``product.*``, ``team.*``, ``cluster.*``).

Pure data, part of :data:`hcrbench.synth.phrases_docs.POOLS`; ``[a|b|c]`` groups are expanded per document by
:func:`hcrbench.synth.text.vary`. Generic practice only: nothing here names an owner, admin, date or location.
"""

from __future__ import annotations

SYSTEMS = {
    "system.limits": [
        "[Bulk exports|Mass downloads|Large extracts|Scheduled exports] are [capped|limited|set|held] at "
        "[fifty|twenty-five|a hundred|ten] thousand [records|rows|items|entries] per "
        "[request|run|job|file].",
        "[Single sign-on|Browser|Web|Desktop] sessions [expire|time out|end|close] after "
        "[twelve|eight|four|ten] hours of [inactivity|idle time|no activity|silence].",
        "The [mobile interface|phone app|tablet view|lightweight client] [offers|exposes|supports|covers] "
        "[a subset|only part|a reduced set|the most common] of the [desktop|full|browser|web] "
        "[features|functions|screens|workflows].",
        "[Custom integrations|Bespoke connectors|Home-grown scripts|Third-party plug-ins] need a "
        "[review|check|sign-off|design review] by the [owning|responsible|platform|supporting] team before "
        "they [go live|are enabled|touch live data|connect to production].",
        "[Historical|Archived|Older|Migrated] [data|content|information|history] [from before|older "
        "than|predating|ahead of] the [last|previous|most recent] [migration|platform change|major "
        "upgrade|re-platforming] is [read-only|view-only|locked for editing|available for reference only].",
        "[API|Request|Call|Integration] [rate limits|quotas|throttles|caps] [apply|are enforced|are "
        "counted|are measured] per [integration|client application|service account|token], not per "
        "[user|person|seat|login].",
        "[Attachments|Uploaded files|Imported documents|Images] [larger|bigger|heavier] than "
        "[twenty|fifty|ten|twenty-five] megabytes are [rejected|refused|blocked|not accepted]; "
        "[compress|split|zip|link] them [instead|first|before uploading|rather than attaching].",
        "[Keyword search|Full-text search|Filtering|Indexing] [across|over|within|spanning] [archived|very "
        "old|closed|deleted] [items|records|cases|projects] is [slower|limited|not supported|batch-updated "
        "overnight].",
        "[Reports|Dashboards|Saved views|Scheduled queries] [refresh|update|recalculate|reload] every "
        "[hour|night|few hours|fifteen minutes|morning], so [figures|numbers|totals|counts] can "
        "[lag|trail|differ from|fall behind] [live data|the source|what you just entered|the latest "
        "changes].",
        "[Concurrent|Simultaneous|Parallel|Shared] [editing|updating|work|collaboration] on [the same "
        "record|one item|a single document|the same form] [is not|isn't fully|is only partly|is not yet] "
        "[supported|merged|handled|reconciled]; the [last|final|most recent] [save|write|edit] "
        "[wins|overwrites earlier ones|takes priority].",
    ],
    "system.support": [
        "[First-line|Initial|Front-line|Tier-one] support is [provided|handled|given|offered] by the "
        "[service desk|helpdesk|support centre|IT front desk], [second-line|deeper|specialist|tier-two] "
        "[support|investigation|help|troubleshooting] by the [owning|responsible|supporting|product] team.",
        "[Severity 1|Critical|Top-priority|Business-stopping] [problems|faults|tickets|issues] are "
        "[answered|picked up|acknowledged|triaged] within [fifteen|thirty|ten|twenty] minutes, [around the "
        "clock|at any hour|day and night|every day of the year].",
        "[Known issues|Current problems|Open defects|Reported faults] and [workarounds|temporary "
        "fixes|suggested steps|interim advice] are [listed|published|kept|tracked] on the service's "
        "[status page|support page|help page|wiki page].",
        "The [vendor|supplier|software provider|manufacturer] is [engaged|contacted|brought in|called] by "
        "the [owning|supporting|responsible|platform] team only; please do not "
        "[contact|email|ring|message] them [directly|yourself|on your own|without going through the team].",
        "[Planned work|Maintenance|Patching|Upgrades] is [scheduled|booked|arranged|carried out] [in quiet "
        "hours|at weekends|outside business hours|in agreed windows] and "
        "[announced|published|flagged|shared] [a week ahead|in advance|on the status page|in the weekly "
        "digest].",
        "[Feature requests|Enhancement ideas|Suggestions|Improvement requests] go through the [ideas "
        "board|request form|product backlog|intake queue] and are [reviewed|triaged|assessed|discussed] "
        "[monthly|every sprint|each quarter|at the planning session].",
        "[Urgent|Out-of-hours|Weekend|Night-time] [problems|requests|faults|emergencies] [should|must|need "
        "to] be [raised|reported|logged|phoned in] through the [service desk hotline|emergency line|duty "
        "phone|urgent ticket category], not by [email|chat|direct message|a comment on the wiki].",
        "[Training|How-to guides|Short videos|Quick-start sheets] for [new users|newcomers|occasional "
        "users|administrators] are [available|linked|collected|kept] [on the help page|in the learning "
        "portal|in the team space|from the service's home page].",
        "[Access requests|New accounts|Permission changes|Role changes] are "
        "[raised|requested|made|submitted] through the [self-service catalogue|request portal|access "
        "form|service catalogue] and [approved|signed off|confirmed|checked] by the [requester's "
        "manager|data owner|system owner|resource owner].",
        "[Outages|Incidents|Serious faults|Disruptions] are [announced|posted|shown|reported] on the "
        "[status page|service health board|IT news feed|operations channel] [as soon as|once|the "
        "moment|when] they are [confirmed|known|detected|verified].",
    ],
    "system.data": [
        "The system holds [personal|customer|employee|financial] data, so access is "
        "[limited|restricted|granted only|confined] to people who need it for their [role|job|daily "
        "work|assigned tasks].",
        "[Data|Records|Content|Customer information] is [stored|hosted|kept|held] in [one region|a single "
        "jurisdiction|the region named in the contract|a primary data centre] and "
        "[replicated|copied|mirrored|backed up] to a [second|secondary|separate|standby] "
        "[site|region|location|data centre] for [recovery|resilience|continuity|disaster recovery].",
        "[Nightly|Daily|Regular|Automatic] [backups|snapshots|copies|exports] are "
        "[kept|held|retained|stored] for [thirty-five|thirty|sixty|ninety] days [and tested|with restores "
        "checked|with spot checks|under encryption].",
        "[Reports|Analyses|Dashboards|Extracts] built on this data must use the "
        "[certified|approved|governed|curated] [datasets|views|models|sources], not [raw extracts|ad hoc "
        "copies|private spreadsheets|screen scrapes].",
        "[Deletion|Erasure|Correction|Subject access] requests are [processed|handled|routed|worked] "
        "through the [privacy team's|data protection|privacy office|compliance] "
        "[workflow|queue|process|request form].",
        "[Data|Fields|Values|Columns] [classified|labelled|marked|tagged] as "
        "[confidential|sensitive|restricted|personal] are [masked|hidden|redacted|obscured] in [test "
        "environments|non-production copies|training systems|demo accounts].",
        "[Every|Each|Any] [read|change|export|login] of [sensitive|restricted|personal|protected] "
        "[records|fields|data|information] is [logged|recorded|audited|tracked] and "
        "[reviewed|sampled|checked|monitored] [regularly|every month|by the security team|on a schedule].",
        "[Exports|Downloads|Copies|Extracts] [leaving|taken outside|moved out of|copied from] the system "
        "must be [encrypted|stored on managed devices|kept in approved locations|deleted after use].",
        "[Test|Training|Demo|Development] [environments|copies|instances|systems] [use|hold|contain|rely "
        "on] [synthetic|anonymised|masked|generated] [data|records|samples|datasets] [only|by "
        "default|wherever possible|as a rule].",
        "[Data integrations|Interfaces|Feeds|Connectors] [that|which] [send|pass|push|copy] data "
        "[to|into|towards] [other|downstream|external|partner] [systems|services|tools|platforms] are "
        "[listed|documented|recorded|registered] in the [data map|integration register|record of "
        "processing|interface catalogue].",
    ],
    "engproc.checklist": [
        "The change has a [linked|referenced|related|connected] [ticket|work item|issue|story] with a "
        "[short|brief|one-line|clear] [risk note|impact note|description of the blast radius|test plan].",
        "[Automated tests|Unit tests|Integration tests|Contract tests] [cover|exercise|check|verify] the "
        "[new|changed|modified|added] [behaviour|logic|code paths|edge cases] and [pass|run "
        "green|succeed|complete] [locally|in the pipeline|on a clean checkout|in continuous integration].",
        "[Monitoring dashboards|Dashboards|Metrics|Alerts] [show|expose|capture|surface] the "
        "[signals|numbers|indicators|evidence] needed to [tell|judge|see|confirm] whether the change "
        "[works|behaves|helps|is healthy].",
        "The [rollback path|revert plan|back-out step|undo procedure] has been "
        "[tried|rehearsed|exercised|tested] at least once in [staging|a test environment|a "
        "sandbox|pre-production].",
        "[Documentation|Runbooks|Help pages|Operator notes] [and|plus] "
        "[runbooks|diagrams|changelogs|configuration notes] are [updated|amended|revised|refreshed] in the "
        "same change.",
        "[Feature flags|Toggles|Kill switches|Experiment switches] have [an owner|an accountable person|a "
        "named maintainer|an assigned steward] and a [removal date|clean-up date|review date|retirement "
        "plan].",
        "[Database|Schema|Index|Storage] [changes|migrations|alterations|updates] are "
        "[backwards-compatible|reversible|tested on a copy|split into safe steps] and "
        "[reviewed|checked|approved|read] by [a second engineer|someone outside the team|a database "
        "specialist|the platform group].",
        "[Secrets|Keys|Tokens|Connection strings] [live|sit|are kept|are stored] in the [vault|secret "
        "store|managed key service|approved secrets manager], never in [code|the repository|config "
        "files|chat messages].",
        "[Dependencies|Libraries|Packages|Base images] [added|upgraded|introduced|pinned] by the change "
        "have been [scanned|checked|vetted|reviewed] for [known vulnerabilities|licence "
        "problems|maintenance status|security advisories].",
        "[Affected|Neighbouring|Downstream|Dependent] teams [know|have been told|are aware|were warned] "
        "[when|that] the change [lands|goes out|ships|takes effect] and what to [watch "
        "for|check|report|expect].",
    ],
    "engproc.mistakes": [
        "[Skipping|Bypassing|Rushing|Leaving out] the [staging check|test run|canary stage|peer check] "
        "because the change [looks trivial|seems tiny|is only a config edit|is just one line].",
        "[Bundling|Mixing|Combining|Packing] [unrelated|several|loosely related|half-finished] "
        "[fixes|changes|features|refactors] into one [large|sprawling|enormous|hard-to-read] change.",
        "[Leaving|Keeping|Forgetting|Abandoning] [temporary|experimental|short-lived|launch-time] "
        "[flags|toggles|switches|workarounds] in the code [long after|months after|well after|weeks after] "
        "[launch|they were needed|the experiment ended|the release].",
        "[Relying|Depending|Counting|Leaning] on a [single|lone|single trusted|one] person to "
        "[approve|check|sign off|review] [risky|large|sensitive|complex] changes [every time|by "
        "default|out of habit|without a backup].",
        "[Treating|Regarding|Dismissing|Writing off] [warnings|deprecation notices|flaky tests|lint "
        "messages] in the [build output|pipeline|test logs|compiler output] as [harmless|noise|someone "
        "else's problem|cosmetic].",
        "[Writing|Drafting|Creating|Starting] the [runbook|operator guide|support notes|alert "
        "descriptions] after the first [problem|incident|failure|page] instead of before "
        "[release|launch|go-live|shipping].",
        "[Testing|Checking|Trying|Validating] only the [happy path|expected input|default settings|simple "
        "cases] and [missing|overlooking|forgetting|skipping] [timeouts|empty values|large "
        "inputs|concurrent requests].",
        "[Copying|Pasting|Reusing|Borrowing] [configuration|settings|scripts|snippets] from [another|an "
        "older|a similar|a neighbouring] [service|environment|project|repository] without "
        "[checking|understanding|adapting|reviewing] [what|each value it|which parts it] "
        "[changes|sets|overrides|assumes].",
        "[Merging|Shipping|Releasing|Pushing] [late on a Friday|just before a holiday|minutes before a "
        "freeze|at the end of a long day] without [anyone|a colleague|a second person|someone] "
        "[watching|around to watch|on hand to check|able to react to] the [result|graphs|aftermath|alerts].",
        "[Hard-coding|Embedding|Baking in|Inlining] [hostnames|limits|timeouts|credentials] [that|which] "
        "[belong|should live|ought to sit|need to be] in [configuration|the settings store|environment "
        "variables|the vault].",
    ],
    "engproc.when_not": [
        "[Prototypes|Throwaway spikes|Design experiments|Proofs of concept] that never "
        "[touch|reach|read|write to] [production data|live systems|customer records|shared infrastructure] "
        "can follow a [lighter|shorter|simpler|trimmed] process.",
        "During a [declared|major|high-severity|formally opened] incident, the [incident lead|duty "
        "manager|incident commander|senior responder] may [approve|authorise|allow|sign off] "
        "[emergency|urgent|corrective|stabilising] changes [and|then] [document them afterwards|record "
        "them the same day|file the paperwork later|review them the next morning].",
        "[Documentation-only|Comment-only|Typo-fix|Text-only] changes need [one reviewer|a single "
        "approval|a quick look from a colleague|one sign-off] and no [staging check|canary|change "
        "ticket|release window].",
        "[Internal tools|Team scripts|Personal utilities|Sandbox services] used by [a handful of|only a "
        "few|fewer than ten|a small group of] [people|engineers|colleagues|team members] may "
        "[skip|omit|drop|relax] the [formal|full|heavier|complete] [sign-off|approval|review board|change "
        "board] [step|stage|requirement].",
        "[Reverting|Rolling back|Undoing|Backing out] a [recent|just-released|faulty|misbehaving] change "
        "[does not|never needs to|need not] [wait for|go through|queue for] the "
        "[usual|regular|normal|standard] [approval|review cycle|change board|release slot].",
        "[Reversible|Low-risk|Self-contained|Toggle-guarded] [configuration changes|copy changes|style "
        "tweaks|dashboard edits] [inside|within|confined to] a [single|team-owned|non-critical|sandboxed] "
        "[service|tool|space|workspace] can [go out|ship|be applied|land] [with|after] a "
        "[lighter|quicker|single|shorter] [review|check|approval|look].",
        "[Spikes|Research tasks|Benchmarks|Throwaway analyses] [run|done|carried out|kept] [on|in|against] "
        "[personal|local|isolated|temporary] [branches|sandboxes|notebooks|copies] need no [change "
        "ticket|formal review|release note|approval] [at all|until they turn into real work|unless they "
        "are kept|while they stay local].",
    ],
    "product.users": [
        "[Primary|Core|Main|Typical] users are [finance|operations|procurement|back-office] staff in "
        "[companies|organisations|businesses|firms] with [two hundred|a few hundred|several hundred|five "
        "hundred] to [five|ten|twenty] thousand employees.",
        "[Administrators|Power administrators|Account owners|System administrators] [configure|set "
        "up|tailor|manage] the product; [day-to-day|everyday|regular|most] users [mostly work|spend their "
        "time|live|stay] in the [dashboard|inbox view|task list|home screen].",
        "[Most|Many|The majority of|A large share of] customers [start|begin|launch|pilot] with [one|a "
        "single|a small] [department|team|region|business unit] and [expand|grow|spread|widen] [after the "
        "first year|over time|once they see results|within a few quarters].",
        "[Partners|Resellers|Channel partners|Distributors] [resell|sell|offer|bundle] the product in "
        "[markets|regions|countries|segments] where [the company|the group|the business] has no [direct "
        "sales team|local office|field sales presence|local team].",
        "[Power users|Expert users|Heavy users|Analysts] [rely on|depend on|love|make heavy use of] "
        "[keyboard shortcuts|bulk actions|saved filters|custom views] and [bulk edits|exports|automation "
        "rules|templates].",
        "[Occasional|Infrequent|Casual|Light] users [open|visit|log into|check] the product [once a "
        "month|a few times a quarter|only at month-end|around reporting deadlines] and "
        "[need|want|expect|value] [guidance|clear defaults|a simple path|reminders] [more than|over|rather "
        "than|ahead of] [features|depth|configurability|options].",
        "[Auditors|Controllers|Managers|Executives] [read|review|consult|look at] "
        "[summaries|reports|approvals|audit trails] but [rarely|seldom|almost never|hardly ever] "
        "[enter|edit|create|change] [data|records|entries|transactions] [themselves|directly|by hand].",
        "[Field|Mobile|Travelling|Site-based] [staff|workers|teams|engineers] [use|open|rely on|check] the "
        "[phone app|mobile view|tablet app|lightweight client] [between|on the way to|during|after] "
        "[visits|jobs|appointments|shifts], [often|usually|mostly|typically] [on|with|over] "
        "[poor|patchy|slow|unreliable] [connections|signal|networks|coverage].",
        "[Implementation partners|Consultants|Systems integrators|Agencies] [configure|set "
        "up|deploy|tailor] the product [for|on behalf of|alongside|together with] "
        "[smaller|mid-sized|first-time|less technical] [customers|clients|buyers|organisations] [that "
        "lack|without|who have no|missing] [in-house|internal|dedicated|specialist] [IT "
        "staff|administrators|technical teams|expertise].",
        "[Buyers|Purchasers|Decision-makers|Budget holders] [are often|tend to be|are usually|are "
        "frequently] [different people|separate|other people|not the same people] from the "
        "[daily|everyday|hands-on|regular] [users|operators|staff|practitioners], [which|and this] "
        "[shapes|affects|drives|influences] [how|the way] the product is "
        "[sold|demonstrated|priced|packaged].",
    ],
    "product.non_goals": [
        "[Becoming|Turning into|Growing into|Positioning as] a "
        "[general-purpose|universal|catch-all|do-everything] [workflow engine|automation platform|low-code "
        "builder|process suite].",
        "[Replacing|Substituting for|Competing with|Taking over from] the customer's [general "
        "ledger|accounting system|core finance suite|payroll engine] [or its reporting|in whole or in "
        "part|as the system of record|for statutory filings].",
        "[Supporting|Offering|Maintaining|Packaging] [on-premise installations|self-hosted "
        "editions|air-gapped installs|customer-managed hosting] [for any tier|in the first releases|at any "
        "price|outside the cloud edition].",
        "[Building|Developing|Adding|Shipping] [features|screens|integrations|reports] for a "
        "[single|lone|one-off|one] customer.",
        "[Competing|Fighting|Racing|Matching rivals] on price with [entry-level|budget|free|bargain] "
        "[tools|products|apps|spreadsheet templates].",
        "[Offering|Providing|Running|Selling] [consulting|implementation services|custom "
        "development|bespoke training] [as|for|through] a [core|main|primary|standard] [revenue "
        "line|offering|business|product line].",
        "[Storing|Hosting|Archiving|Holding] [documents|files|scans|media] [as a|like a|for use as a] "
        "[general|standalone|full] [file share|content repository|document store|drive].",
        "[Replacing|Duplicating|Rebuilding|Imitating] [chat tools|email clients|calendar apps|video "
        "calling] [inside|within|as part of|in] the product.",
        "[Supporting|Accommodating|Serving|Targeting] [very small|sole-trader|hobbyist|one-person] "
        "[businesses|customers|users|accounts] [in|during|for|throughout] the [current|first|next "
        "two|coming] [phase|releases|years|roadmap period].",
        "[Guaranteeing|Promising|Committing to|Offering] [custom|bespoke|individual|per-customer] [service "
        "levels|response times|release dates|uptime figures] [outside|beyond|apart from] the "
        "[standard|published|contracted|tiered] [plans|terms|packages|schedule].",
    ],
    "product.metrics": [
        "[Weekly|Monthly|Daily|Rolling] active users per [customer account|workspace|tenant|paying "
        "customer], [tracked|reported|charted|reviewed] [weekly|monthly|by segment|by region].",
        "[Time|Days|Elapsed time|Average time] from [sign-up|contract signature|first login|account "
        "creation] to [first value|first completed task|the first report|the first live workflow], "
        "measured in [days|working days|hours].",
        "[Support tickets|Help requests|Contacts|Cases] per [hundred|thousand|fifty|five hundred] [active "
        "users|monthly users|seats|accounts].",
        "[Net revenue retention|Gross retention|Renewal rate|Expansion revenue] over "
        "[twelve|eighteen|twenty-four] months, [split|broken down|segmented|reported] by [customer "
        "size|region|plan|industry].",
        "[Share|Proportion|Percentage|Fraction] of customers using at least [three|two|four|five] [core "
        "capabilities|main features|modules|key workflows].",
        "[Task completion rate|Success rate|Abandonment rate|Error rate] [in|for|across|on] the [most|five "
        "most|ten most|three most] [common|frequent|important|used] [workflows|journeys|tasks|flows].",
        "[Median|Average|Ninetieth-percentile|Typical] [page load time|response time|report run "
        "time|search latency] [as experienced by|for|seen by|measured for] [real users|customers|the "
        "busiest accounts|mobile users].",
        "[Customer satisfaction|User satisfaction|Recommendation score|Ease-of-use rating] "
        "[from|in|gathered by|measured through] [in-app surveys|quarterly surveys|post-ticket polls|user "
        "interviews].",
        "[Number|Count|Share|Rate] of [workflows|approvals|invoices|documents] "
        "[completed|processed|handled|closed] [without|with no|free of|needing no] "
        "[manual|human|offline|paper] [steps|intervention|re-keying|workarounds].",
        "[Churn|Cancellation|Downgrade|Non-renewal] [rate|share|reasons|trends] [among|for|across|within] "
        "[customers|accounts|tenants|segments] in their [first|second|opening|initial] [year|renewal "
        "cycle|half-year|contract term].",
    ],
    "team.rituals": [
        "[Stand-up|The morning check-in|The daily huddle|Our sync] runs at [nine thirty|ten|a quarter past "
        "nine|half past nine] on [Mondays, Wednesdays and Fridays|weekdays|Tuesdays and Thursdays|most "
        "mornings].",
        "[Planning|Sprint planning|Backlog planning|Iteration planning] happens every [second "
        "Tuesday|other Monday|fortnight|second Wednesday]; [demos|showcases|reviews|show-and-tells] "
        "[follow|come|happen|take place] [on the Thursday after|at the end of the iteration|the week "
        "after|two days later].",
        "A [monthly|regular|quarterly|six-weekly] retrospective looks at [how we work|our habits|the way "
        "we collaborate|our process], not just [what we shipped|output|delivery|the roadmap].",
        "[Team members|Colleagues|Engineers|We] take turns to [run|lead|host|facilitate] the "
        "[weekly|daily|twice-weekly|Monday] [intake triage|request review|ticket sweep|queue review].",
        "Once a [quarter|month|season|half-year] the team spends a [day|morning|couple of days|full day] "
        "on [improvements|tooling|learning|clean-up work] of its own [choosing|picking|selection].",
        "[Friday afternoons|Wednesday mornings|Thursday afternoons|The last hour of the week] are "
        "[kept|reserved|set aside|protected] for [learning|reading|experiments|documentation] "
        "[without|free of|clear of|away from] [meetings|interruptions|tickets|chat].",
        "[New joiners|Newcomers|Recent hires|New team members] get a [buddy|mentor|guide|pairing partner] "
        "for their first [month|six weeks|quarter|few weeks] and a [written|short|simple|clear] "
        "[plan|checklist|list of goals|reading list].",
        "[Decisions|Design choices|Trade-offs|Agreements] are [written down|recorded|logged|captured] in "
        "[short|one-page|lightweight|plain] [decision notes|design records|summaries|entries] so that "
        "[absent|remote|future|new] [colleagues|team members|readers|joiners] can [catch "
        "up|follow|understand the reasons|see why].",
        "[Incidents|Near misses|Surprises|Hard lessons] [get|are given|receive|earn] a "
        "[short|blameless|thirty-minute|written] [review|debrief|look-back|write-up] "
        "[within|inside|during|before the end of] the [week|fortnight|sprint|month] [they happen|they "
        "occur|of the event|in question].",
        "[Birthdays|Work anniversaries|Promotions|Farewells] are [marked|celebrated|noted|acknowledged] "
        "with [cake|a card|a team lunch|a short toast] [at|during|after] the [Friday|weekly|monthly|next] "
        "[catch-up|demo|stand-up|team meeting].",
    ],
    "team.owns": [
        "The team keeps a [public|visible|widely shared|shared] [backlog|roadmap|board|queue] so that "
        "other teams can [see|follow|check|track] what is [coming|planned|in progress|next].",
        "[Service-level targets|Response targets|Turnaround times|Commitments] for the team's work are "
        "[published|posted|documented|listed] on the [intranet|team page|wiki|team space].",
        "[Requests|Questions|Tickets|Asks] are [answered|acknowledged|picked up|responded to] within "
        "[two|three|one|a couple of] working days, even if only to say when they will be [picked "
        "up|handled|started|looked at].",
        "The team [publishes|shares|writes|circulates] a [short|brief|one-page|plain] "
        "[summary|report|review|round-up] of its work at the end of every "
        "[quarter|half-year|month|planning cycle].",
        "[Documentation|Guidance|Reference material|How-to material] for everything the team "
        "[owns|runs|maintains|looks after] [lives|is kept|sits|is stored] in the team space on the wiki.",
        "[Changes|Releases|Updates|Maintenance windows] that [affect|touch|could disturb|matter to] other "
        "teams are [announced|flagged|highlighted|posted] [in advance|a week ahead|in the shared "
        "channel|on the change calendar].",
        "[Feedback|Every comment|Each idea|Any suggestion] about the team's [services|work|tools|support] "
        "is [welcome|encouraged|invited|appreciated] and [reviewed|read|discussed|triaged] at the "
        "[monthly|next|regular|quarterly] [retrospective|planning session|team meeting|review].",
        "[Changes|Improvements|Fixes|Tweaks] the team [makes|ships|delivers|releases] are "
        "[listed|summarised|described|logged] in a [monthly|running|public|shared] [changelog|release "
        "note|digest|update] that [anyone|other teams|every colleague|stakeholders] can [subscribe "
        "to|follow|read|search].",
        "[Urgent|Blocking|Critical|Time-sensitive] [requests|issues|problems|questions] "
        "[outside|beyond|after] [office hours|core hours|the working day|the usual schedule] go to the "
        "[duty rota|standby person|escalation contact|emergency line] [listed|shown|named|published] on "
        "the team page.",
        "[Capacity|Availability|Lead time|Queue length] for [new|incoming|planned|larger] "
        "[requests|work|projects|asks] is [reviewed|shared|posted|updated] [monthly|each sprint|every "
        "quarter|weekly] [so|so that] [requesters|other teams|sponsors|partners] can [plan|set "
        "expectations|book time|schedule] [realistically|accordingly|early|with confidence].",
    ],
}

CLUSTER = {
    "cluster.review_method": [
        "[Account owners|Managers|Resource owners|Team leads] [confirmed|verified|checked|attested to] "
        "each [account|permission|entitlement|role] in the [review tool|certification tool|review "
        "workbook|governance portal].",
        "[Accounts|Users|Permissions|Memberships] without a [response|reply|decision|confirmation] after "
        "[two|three] [reminders|chasers|nudges|follow-ups] were [disabled|suspended|removed|locked].",
        "[Service accounts|Machine accounts|Technical users|Integration accounts] were "
        "[checked|matched|compared|reconciled] against the [service catalogue|asset register|application "
        "inventory|configuration database].",
        "[Leavers|Movers|Dormant accounts|Unused accounts] [found|spotted|identified|flagged] during the "
        "[exercise|review|sweep|check] were [removed|closed|cleaned up|deprovisioned] [the same day|within "
        "a week|straight away|before sign-off].",
        "[Privileged|Administrative|Elevated|High-risk] [roles|permissions|groups|rights] "
        "[received|got|needed|went through] a [second|separate|stricter|closer] [look|check|approval|pass] "
        "by [a security analyst|the control owner|an independent reviewer|someone outside the team].",
        "[Group memberships|Shared mailbox grants|Folder permissions|Distribution lists] were "
        "[sampled|checked|reviewed|tested] [alongside|together with|as well as|in addition to] "
        "[individual|personal|named|direct] [accounts|grants|permissions|roles].",
        "[Evidence files|Screenshots|Export files|Sign-off records] [from|of|for|covering] the "
        "[review|exercise|campaign|round] [were|have been|are] [stored|filed|archived|kept] [for|ready "
        "for|to support|in case of] [audit|later checks|the next assessment|external review].",
        "[Reviewers|Owners|Approvers|Managers] [who|that] [approved|confirmed|ticked|accepted] "
        "[everything|every line|all items|whole lists] [without changes|in seconds|in bulk|at once] "
        "[received|got|were sent|were given] a [follow-up|second request|reminder|query] [asking|to "
        "ask|checking] for [reasons|justification|a closer look|detail].",
    ],
    "cluster.onboarding_tips": [
        "[Ask questions early|Ask early and often|Speak up early|Raise questions freely]; [nobody|no one] "
        "[expects|wants|needs|requires] you to know the [systems|tools|acronyms|processes] [yet|in your "
        "first weeks|straight away|on day one].",
        "Keep a [list|note|running log|notebook] of things that [confused|puzzled|surprised|frustrated] "
        "you, it [helps|lets us|allows us to] [improve|refine|update|fix] this [checklist|guide|page].",
        "[Block|Reserve|Set aside|Protect] time in your calendar to [read|explore|learn|practise], not "
        "just to [meet people|attend sessions|sit in calls|join introductions].",
        "[Say hello|Introduce yourself|Post a short hello|Drop a note] in the [team channel|wider "
        "department channel|newcomers' channel|office chat] [so|so that] "
        "[people|colleagues|teammates|neighbours] can [put a face to the name|find you|welcome you|offer "
        "help].",
        "[Shadow|Sit in with|Join|Observe] [a colleague|someone from support|a senior teammate|a buddy] "
        "[for|during|through] a [shift|morning|few calls|week] to [see|learn|understand|watch] how "
        "[requests|incoming jobs|customer questions|daily tasks] [flow|arrive|get handled|move].",
        "[Bookmark|Save|Pin|Keep handy] the [team page|help portal|people directory|service catalogue]; "
        "[most|many|nearly all|the bulk of] [early|first-week|newcomer|beginner] "
        "[questions|puzzles|requests|problems] [are answered|are covered|have answers|are explained] there.",
        "[Take|Use|Make the most of|Enjoy] [lunch|coffee breaks|walks|the kitchen] "
        "[with|alongside|together with] [different|new|various|neighbouring] "
        "[colleagues|teams|people|faces] [in|during|for] your [first|opening|first few|early] "
        "[weeks|month|days|fortnight].",
        "[Write|Note|Jot|Put] down [acronyms|team names|tool names|abbreviations] as you [meet|hear|come "
        "across|bump into] them, and [check|look them up|ask about them|confirm them] [later|at the end of "
        "the day|with your buddy|in the glossary].",
    ],
    "cluster.release_known": [
        "[Very large|Oversized|Multi-year|Unusually big] [exports|downloads|extracts|reports] can still "
        "[time out|stall|fail|take several minutes]; [split|break|divide|chunk] them into "
        "[smaller|shorter|monthly|weekly] [ranges|batches|periods|pieces].",
        "The new [filters|sorting options|saved views|column settings] are not yet "
        "[available|shown|supported|enabled] in the [mobile|tablet|narrow-screen|offline] "
        "[view|app|layout|client].",
        "[Some|A few|Certain|Older] browser [extensions|add-ons|plug-ins|privacy tools] [interfere "
        "with|break|disrupt|block parts of] the new [editor|toolbar|upload dialog|preview pane].",
        "[Notifications|Email alerts|Reminder messages|Digest emails] [can|may|might|could] [arrive|show "
        "up|be sent|appear] [twice|late|out of order|without their formatting] for [a small number "
        "of|some|a handful of|certain] [users|accounts|workspaces|subscribers].",
        "[Keyboard navigation|Screen-reader labels|High-contrast mode|Focus order] on the "
        "[new|redesigned|updated|rebuilt] [settings page|form builder|dashboard|import wizard] [still "
        "has|shows|has|contains] [gaps|rough edges|a few problems|known faults] that are [being "
        "fixed|scheduled for the next update|tracked|under investigation].",
        "[Dates|Times|Currency values|Number formats] in [exported|downloaded|printed|emailed] "
        "[files|reports|sheets|summaries] [may|can|sometimes] [use|show|follow|fall back to] the "
        "[server's|wrong|default|original] [locale|time zone|format|settings].",
        "[Undo|Autosave|Drag and drop|Copy and paste] [does not|can fail to|may not|sometimes doesn't] "
        "[work|behave as expected|keep formatting|respond] in [tables|long documents|nested lists|shared "
        "drafts] [yet|for now|in this version|on older browsers].",
        "[Imported|Migrated|Legacy|Older] [templates|layouts|saved searches|custom fields] "
        "[may|might|can|sometimes] need a [one-off|quick|manual|single] [refresh|re-save|review|fix] [to "
        "pick up|before they show|to display|to use] the [new|updated|latest|changed] "
        "[styles|behaviour|options|layout].",
        "[Keyword search results|Autocomplete suggestions|Recent-items lists|Sorting by date] "
        "[may|can|might|could] [lag|trail|lag behind|run behind] [newly created|just edited|recently "
        "imported|freshly synced] [items|records|entries|documents] by [a few minutes|up to an hour|a "
        "short while|one indexing cycle].",
        "[Printing|Print preview|PDF export|Page layout] [from|of|for] [wide|landscape|very "
        "long|multi-page] [tables|reports|forms|views] [can|may|might|could] [cut off|truncate|clip|drop] "
        "the [last|right-most|final|outer] [column|columns|margin|page].",
        "[Time zone|Daylight-saving|Calendar|Date-picker] [handling|logic|display|behaviour] "
        "[around|near|at|during] the [clock change|month boundary|year end|week boundary] "
        "[can|may|might|could] [show|display|record|produce] [entries|times|events|deadlines] [an hour "
        "off|on the wrong day|twice|out of sequence].",
        "[Single sign-on|Session|Login|Authentication] [redirects|prompts|timeouts|refreshes] "
        "[can|may|might|could] [loop|repeat|stall|fail] [in private browsing|with strict cookie "
        "settings|behind some corporate proxies|on shared machines]; [a normal window|clearing "
        "cookies|another browser|signing in again] [usually|typically|generally|normally] [helps|fixes "
        "it|solves it|works].",
    ],
    "cluster.digest_radar": [
        "[Certificate|Licence|Domain|Support-contract] renewals for [several|a handful of|a few|some] "
        "[internal|shared|customer-facing|legacy] [services|platforms|tools|systems] [fall due|come "
        "up|expire|need attention] [next month|soon|this quarter|in the coming weeks].",
        "[Capacity planning|Load forecasting|Scaling reviews|Headroom checks] for the "
        "[end-of-quarter|seasonal|year-end|month-end] [peak|rush|surge|spike] [starts|begins|kicks "
        "off|gets under way] [next week|shortly|soon|this month].",
        "The [disaster-recovery|failover|backup-restore|business-continuity] "
        "[test|drill|exercise|rehearsal] is [scheduled|planned|booked|pencilled in] for [a weekend|a quiet "
        "evening|an announced window|later this month].",
        "[Operating-system|Database|Runtime|Library] [upgrades|patches|end-of-support dates|version bumps] "
        "[for|across|affecting|on] [older|ageing|legacy|a few] [hosts|clusters|images|servers] [are coming "
        "up|need planning|are on the list|want attention].",
        "[Cost|Cloud spend|Storage growth|Log volume] [reviews|trends|reports|checks] "
        "[flagged|showed|highlighted|pointed to] [a few|several|some|two] "
        "[idle|oversized|forgotten|unused] [resources|volumes|environments|instances] [worth|due for|ready "
        "for|that need] [a clean-up|removal|resizing|a second look].",
        "[Alert|Monitoring|Dashboard|Paging] [tuning|clean-up|hygiene|review] [continues|carries on|is "
        "planned|is under way] to [cut|reduce|trim|remove] [noisy|duplicate|stale|low-value] "
        "[alerts|pages|notifications|checks].",
        "[Account attestations|Permission checks|Quarterly attestations|Entitlement sweeps] "
        "[for|across|covering|on] [shared|production|finance|admin] [systems|tools|groups|accounts] "
        "[open|start|begin|are due] [soon|next week|this month|shortly].",
        "[Old|Stale|Unused|Orphaned] [feature flags|cron jobs|service accounts|DNS records] are [being|due "
        "to be|scheduled to be|about to be] [swept|cleaned up|retired|removed] [across|from|in] [several|a "
        "few|many|some] [services|repositories|zones|environments].",
        "[Holiday|Seasonal|Year-end|Summer] [cover arrangements|staffing plans|standby rotas|support "
        "arrangements] [for|across|on] the [operations|platform|network|service desk] "
        "[team|side|rota|group] [are being|will be|are now being|should be] "
        "[drafted|agreed|published|finalised].",
    ],
}
