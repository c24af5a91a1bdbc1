"""Sentence templates for incident reviews and decision records (``incident.*``, ``decision.*``).

Pure data, part of :data:`hcrbench.synth.phrases_docs.POOLS`. Every ``[a|b|c]`` group is expanded per document by
:func:`hcrbench.synth.text.vary`; the heavy pools hold many templates with several groups each so that no
expansion is likely to repeat across ten documents. Generic practice only: no names, dates or figures a query
could ask about.
"""

from __future__ import annotations

INCIDENT = {
    "incident.impact": [
        "[Customer-facing services|External endpoints|Public-facing pages|Services used by customers] "
        "[were not affected|stayed healthy throughout|kept working normally|saw no measurable change]; the "
        "[impact|damage|disruption|harm] was [limited|confined|restricted] to [internal users|staff "
        "tools|back-office workflows|colleagues on the corporate network|internal dashboards].",
        "The service desk [received|logged|fielded|was flooded with] a [spike|surge|burst|wave] of "
        "[tickets|chat messages|phone calls|duplicate reports] about the [problem|fault|slowdown|errors] "
        "within the first [half hour|twenty minutes|forty minutes|hour].",
        "[Some|Several|A handful of|Many] users [worked around|sidestepped|masked|papered over] the "
        "[problem|fault|failure] by [retrying|refreshing the page|resubmitting their forms|switching "
        "browsers|waiting and trying again], which [hid|obscured|understated|disguised] its "
        "[size|scale|true extent|reach] [at first|for a while|during the first hour|early on].",
        "[Two|Three|Several|A few] [scheduled reports|overnight extracts|batch reconciliations|month-end "
        "summaries|payroll previews] were [delivered late|delayed|held back|rerun the next morning] as a "
        "[knock-on effect|side effect|downstream consequence|secondary effect].",
        "No data was [lost|corrupted|dropped|duplicated]; [queued work|pending jobs|buffered messages|the "
        "backlog of requests|deferred writes] [was processed|drained|caught up|was replayed] once [service "
        "returned|the fix landed|the cluster recovered|traffic was restored|the queue consumers restarted].",
        "[Teams|Colleagues|Staff|Offices] in the [Asia-Pacific|eastern|earliest time-zone|overnight "
        "support] [region|offices|hubs|locations] were [hit hardest|most affected|worst affected|the first "
        "to notice] because the [problem|fault|slowdown] [began|started|struck|surfaced] during their "
        "[working day|morning|busiest hours|core hours].",
        "The [problem|disruption|fault|event] did not [breach|threaten|come close to breaching|put at "
        "risk] any [customer service-level agreement|contractual uptime commitment|external availability "
        "target|published response-time promise].",
        "[Latency|Response times|Page loads|Query times] [rose|climbed|degraded|spiked] to "
        "[several|many|five|ten] times the [usual|normal|typical|baseline] [level|figure|value] for "
        "[most|the bulk|a large part|much] of the [window|episode|event|affected period].",
        "[About|Roughly|Around|Close to] [a quarter|a third|half|a fifth] of [requests|sign-in "
        "attempts|API calls|page views|uploads] [failed|timed out|returned errors|were rejected] at the "
        "[peak|worst point|height of the problem|busiest moment].",
        "[Mobile|Tablet|Browser|Desktop] users [saw|got|ran into|hit] [blank screens|spinning "
        "loaders|generic error pages|stale content|repeated login prompts], while [other clients|the "
        "remaining channels|scripted integrations|batch consumers] [carried on|kept working|were "
        "untouched|behaved normally].",
        "[Finance|Operations|Warehouse|Sales|Support] staff [lost|missed|gave up|spent] [an afternoon|a "
        "morning|several hours|most of a shift] [of|on] [invoicing|order entry|case handling|data "
        "entry|reconciliation] [work|effort|throughput] that had to be [caught up|made "
        "good|recovered|redone] [later|the following day|over the next shift|at the weekend].",
        "[Internal|Partner|Third-party|Downstream] [webhooks|callbacks|feeds|message consumers] "
        "[retried|backed off|queued|piled up] [aggressively|for hours|in bursts|without limit], which "
        "[prolonged|amplified|slowed|complicated] the [recovery|clean-up|return to normal|stabilisation].",
        "[A small number of|A few|Some|Around a dozen] [customers|accounts|tenants|workspaces] "
        "[noticed|reported|complained about|asked about] [slow exports|failed uploads|missing "
        "notifications|delayed emails|intermittent errors], and [each|every one|all of them] "
        "[received|got|was sent] a [personal reply|direct follow-up|written explanation|call from their "
        "account contact].",
        "[Monitoring|Alerting|The metrics pipeline|Log shipping] [itself|also|too] [lagged|degraded|went "
        "partly blind|dropped samples] during the [event|incident|window], so [the exact|the precise|a "
        "full|the true] [impact|error count|blast radius|duration] is [an "
        "estimate|approximate|reconstructed from logs|still being confirmed].",
        "[Scheduled|Nightly|Automated|Recurring] [jobs|syncs|imports|backups] that [started|were "
        "due|kicked off|were queued] during the [window|outage|disruption] [failed cleanly|were "
        "skipped|were retried automatically|completed late] and [needed|required|got] [no manual action|a "
        "manual rerun|a sanity check|spot checks] [afterwards|later|the next day].",
        "[Nobody|No one|Not a single user|No customer] [saw|was shown|gained access to|was exposed to] "
        "[another person's records|incorrect balances|someone else's data|the wrong account] [as a "
        "result|because of this|during the event|at any point].",
        "The [busiest|most loaded|largest|highest-traffic] [region|cluster|availability zone|shard] "
        "[took|absorbed|bore|carried] [most|the bulk|nearly all|the majority] of the [errors|failed "
        "requests|timeouts|retries], while [smaller|quieter|secondary|standby] [ones|sites|zones|regions] "
        "[were barely touched|recovered quickly|stayed green|saw only minor noise].",
        "[Card payments|Checkout|Invoice generation|Order confirmation] [stalled|froze|queued up|slowed to "
        "a crawl] for [a short stretch|several minutes|the first half of the window|part of the "
        "afternoon], and [merchants|shoppers|buyers|clients] [abandoned|gave up on|retried|postponed] "
        "[baskets|purchases|submissions|payments] [in that time|as a result|while it lasted|until it "
        "cleared].",
        "[Warehouse scanners|Handheld terminals|Point-of-sale tills|Kiosk screens] [lost|dropped|could not "
        "hold] their [connection|session|link to the back end|sync] and [staff|operators|shift leads|floor "
        "teams] [switched to|fell back on|resorted to|used] [paper forms|manual logs|offline "
        "mode|spreadsheets] [until|till|right up until] the [link|service|network|back end] [returned|came "
        "back|stabilised|was restored].",
        "[Replication lag|Cache misses|Queue backlogs|Connection resets] [meant|caused|led to|resulted in] "
        "[stale|outdated|inconsistent|half-updated] [balances|stock levels|dashboards|search results] for "
        "[some|a few|a subset of|a minority of] [readers|users|tenants|reports], "
        "[corrected|reconciled|refreshed|repaired] [automatically|overnight|within the hour|by a rerun] "
        "[afterwards|later|once things settled|after recovery].",
        "[Email|Text-message|Push|Webhook] [notifications|alerts|receipts|reminders] [queued|piled "
        "up|backed up|were held] during the [outage|event|fault|window] and [were sent|arrived|were "
        "delivered|flushed through] [in a burst|late|out of order|all at once] [when|as soon "
        "as|after|once] [sending|delivery|dispatch|the relay] [resumed|restarted|recovered|came back].",
        "The [event|failure|outage|fault] [fell|landed|happened|struck] [outside|during|ahead of|after] "
        "[business hours|the payroll cut-off|peak trading|the morning rush], which "
        "[limited|softened|reduced|contained] its [effect|reach|cost|visibility] [considerably|a great "
        "deal|noticeably|somewhat].",
    ],
    "incident.lessons": [
        "The first [alert|page|notification|warning] was too [vague|generic|noisy|terse] to [act on|triage "
        "quickly|route correctly|trust]; it now [names|points to|links|identifies] the [failing "
        "component|affected dependency|relevant dashboard|owning service].",
        "The [runbook|playbook|recovery guide|troubleshooting page] for this "
        "[service|component|pipeline|stack] was [out of date|incomplete|misleading|missing key steps] and "
        "has been [rewritten|revised|rebuilt from scratch|checked step by step].",
        "[Escalation|Paging the right people|Reaching a decision-maker|Finding the owner] took [longer "
        "than it should have|too long|most of the first hour|far longer than planned] because the [duty "
        "rota|escalation list|contact sheet|rota in the scheduling tool] was not [current|up to "
        "date|accurate|maintained].",
        "The [fix|mitigation|workaround|repair] [worked|held|did its job], but it was [applied by "
        "hand|typed into a live console|copied from chat|run from one engineer's machine]; it will be "
        "[automated|scripted|turned into a reviewed job|added to the tooling].",
        "A similar [warning sign|anomaly|error pattern|memory trend] had been "
        "[visible|logged|charted|flagged] [the week before|a few days earlier|during the previous "
        "release|in last month's capacity report] and was [dismissed as noise|not followed up|filed "
        "without an owner|treated as cosmetic].",
        "[Status page updates|Customer notices|Internal updates|Broadcast messages] were "
        "[slow|late|inconsistent|sparse]; the [communications role|comms lead role|scribe role|liaison "
        "role] is now [assigned|named|filled] at the [start|first call|opening minutes] of every "
        "[major|high-severity|declared|significant] incident.",
        "[Rollback|Reverting the change|Failing back|Restoring the previous build] [worked as "
        "designed|went smoothly|was quick and clean|behaved exactly as rehearsed] and [bought|gave|won] "
        "the team [time|breathing room|space|valuable minutes] to [find|trace|confirm|isolate] the [real "
        "cause|root cause|underlying fault|trigger].",
        "A [dependency map|service diagram|call graph|topology view] for the "
        "[service|platform|stack|system] would have [shortened|sped up|simplified|focused] the "
        "[investigation|diagnosis|search for the cause|first hour of triage].",
        "[Test coverage|An automated check|A regression test|A synthetic probe] for this [failure "
        "mode|edge case|timeout path|race condition] did not exist and has been [added|written|put in "
        "place|wired into the pipeline].",
        "[Capacity headroom|Disk growth|Connection pool sizing|Queue depth] is now "
        "[reviewed|charted|checked|forecast] [monthly instead of quarterly|every sprint|weekly|before each "
        "peak season], with [an owner|an alert|a threshold|a ticket] for [anything|every metric|each "
        "resource|any trend] that [crosses|nears|drifts past|approaches] its [limit|ceiling|budget].",
        "[Certificate|Token|Secret|Key] [expiry|rotation|renewal] was [tracked|recorded|noted] only in a "
        "[spreadsheet|personal calendar|wiki table|shared inbox]; [renewals|expiry dates|rotations] now "
        "[raise|open|trigger] a [ticket|reminder|warning|task] [thirty|forty-five|sixty|ninety] days ahead.",
        "The [configuration|feature flag|routing rule|firewall change] that [triggered|started|caused|set "
        "off] the [problem|outage|failure] had [passed|skipped|bypassed|slipped through] [peer "
        "checks|staging|the canary stage|automated linting]; [changes of this kind|similar edits|such "
        "changes] now [need|require|go through] a [second reviewer|dry run|staged release|canary period].",
        "[Dashboards|Graphs|Health views|Service overviews] [showed|reported|displayed|gave] "
        "[averages|smoothed values|green tiles|hourly totals] that [hid|masked|flattened|concealed] the "
        "[spike|tail latency|error burst|failure]; [percentile|per-minute|per-host|per-region] "
        "[views|panels|charts] [have been added|are now the default|sit on the front page].",
        "[Too many|Far too many|Dozens of|A flood of] [people|observers|spectators|well-meaning "
        "colleagues] joined the [bridge call|war room|incident channel|video call], which "
        "[slowed|cluttered|distracted|interrupted] the [responders|people fixing it|engineers at "
        "work|working group]; a [separate|read-only|dedicated|quieter] [channel|feed|room] now "
        "[carries|handles|serves] [updates|status|questions].",
        "[Nobody|No one|Not one person|None of the responders] [knew|remembered|could find|was sure] "
        "[where|how] the [backups|snapshots|replicas|exports] were [kept|stored|restored from]; the "
        "[restore procedure|recovery steps|restore drill|snapshot guide] is now "
        "[practised|rehearsed|tested|exercised] [every quarter|twice a year|monthly|after each major "
        "change].",
        "[Retries|Automatic retries|Client retries|Reconnect loops] [without|lacking|missing|with no] "
        "[jitter|backoff|limits|a circuit breaker] [turned|made|pushed|escalated] a "
        "[brief|small|short-lived|minor] [blip|glitch|hiccup|spike] into a "
        "[sustained|prolonged|self-inflicted|cascading] [overload|failure|storm|outage].",
        "[The handover|Shift change|The swap between responders|Passing the incident on] "
        "[lost|dropped|missed|blurred] [context|key details|the working theory|half the timeline]; a "
        "[short|written|structured|standard] [handover note|summary template|checklist|log entry] is now "
        "[required|expected|part of the process|mandatory].",
        "[Single points of failure|Hidden dependencies|Shared credentials|Undocumented cron jobs] "
        "[surfaced|came to light|were discovered|turned up] during the [review|investigation|timeline "
        "reconstruction|clean-up], and [each one|every one|each item] now [has|carries|comes with] [an "
        "owner|a remediation ticket|an entry in the risk log|an agreed fix date].",
        "[Load tests|Performance tests|Stress tests|Soak tests] had [never|not|only partly] "
        "[covered|exercised|simulated|reproduced] [this traffic pattern|a cold cache|a burst of writes|the "
        "end-of-month peak]; [a scenario|one|a test case|a script] for it [now runs|is scheduled|has been "
        "added|is part of the suite].",
        "[Logs|Traces|Error messages|Audit events] [lacked|were missing|did not carry|had lost] [request "
        "identifiers|timestamps with time zones|enough context|correlation fields], so "
        "[matching|joining|following|tracing] [events|calls|requests] across "
        "[services|hosts|layers|regions] was [slow|painful|guesswork|manual].",
        "[Vendor|Supplier|Provider|Upstream] [status pages|notices|support replies|health feeds] "
        "[lagged|trailed|fell behind|contradicted] what [our probes|our own checks|internal monitoring|our "
        "graphs] [showed|were saying|already knew]; the team now [trusts|relies on|checks|starts from] "
        "[its own measurements|first-party signals|synthetic checks] [first|before anything else|by "
        "default].",
        "[Declaring|Calling|Opening|Raising] the incident [earlier|sooner|at the first sign|within "
        "minutes] would have [saved|cut|trimmed|shaved off] [time|an hour|a good part of the "
        "delay|confusion]; [responders|engineers|people on shift|team members] are "
        "[encouraged|told|reminded|expected] to [declare early|err on the side of declaring|raise it first "
        "and downgrade later].",
        "[DNS|Load-balancer|Firewall|Proxy] [changes|rules|records|settings] were "
        "[edited|changed|pushed|updated] [outside|without|ahead of|around] the [change calendar|usual "
        "review|ticketed process|maintenance window]; they now [live|sit|are managed|are versioned] in "
        "[code|the configuration repository|reviewed templates|source control] [like everything else|with "
        "an approval step|with automated checks|and ship through the pipeline].",
        "A [memory leak|thread-pool exhaustion|connection leak|file-handle leak] had been "
        "[building|growing|creeping up|accumulating] for [days|weeks|several releases|a long while] "
        "[before|until|ahead of the moment] the [service|process|worker|container] [fell "
        "over|crashed|stopped answering|was killed]; [trend|saturation|leak|resource] "
        "[alerts|graphs|checks|thresholds] now [catch|flag|surface|warn about] the "
        "[slope|growth|drift|build-up].",
        "[Failover|The standby|The replica|Our secondary site] [had not been|was never|was rarely|had not "
        "recently been] [exercised|tested|promoted|switched to], and [it|the switch|promotion|the "
        "cut-over] [took|needed|required|cost] [longer|more manual steps|more nerve|more coordination] "
        "than [anyone expected|the runbook claimed|planned|it should]; "
        "[regular|scheduled|quarterly|routine] [drills|game days|failover tests|exercises] [are now "
        "booked|have been added|are on the calendar|now run].",
        "[Feature flags|Kill switches|Traffic controls|Rate limiters] [would have|could have|might "
        "have|should have] [contained|limited|switched off|isolated] the [faulty|broken|misbehaving|new] "
        "[path|code|feature|release] [within minutes|almost at once|without a rollback|in one step]; "
        "[risky|large|customer-facing|high-traffic] [changes|features|releases|launches] now [ship|go "
        "out|launch|arrive] [behind one|with one|behind a toggle|with a switch].",
    ],
    "incident.comms": [
        "[Updates|Progress notes|Status messages|Short bulletins] were [posted|published|pushed|shared] on "
        "the [status page|internal status board|service health page|operations channel] every "
        "[thirty|twenty|fifteen|forty-five] minutes until the [service recovered|fix was confirmed|error "
        "rate settled|system was stable].",
        "[An all-clear|A resolution|A closing|A recovery] [message|notice|note|bulletin] was "
        "[sent|issued|posted|circulated] to [affected teams|impacted departments|the people who reported "
        "it|everyone subscribed] once [monitoring|the graphs|error rates|every health check] had been "
        "[stable|quiet|flat|green] for [an hour|two hours|a full business hour|most of the afternoon].",
        "[Team leads|Department heads|Line managers|Site leads] were [briefed|updated|called|messaged] "
        "[directly|individually|in a short call|by the incident lead] so that they could [answer "
        "questions|reassure|brief|update] [their staff|their teams|people on the floor|their direct "
        "reports].",
        "A [short|concise|plain-language|one-page] [summary|write-up|recap|account] was "
        "[shared|included|published|circulated] in the [weekly operations digest|next engineering "
        "newsletter|monthly service review|leadership briefing].",
        "The [postmortem document|review write-up|incident report|blameless review] is "
        "[open|available|visible] to [all staff|everyone in the company|every engineer|anyone with wiki "
        "access] for [comments|questions|corrections|suggestions] for [two weeks|ten working days|the rest "
        "of the month|a fortnight].",
        "[Customers who|Accounts that|Clients who|Partners who] [raised|opened|filed|logged] a "
        "[ticket|case|support request|complaint] [received|got|were sent] a [follow-up|personal "
        "reply|closing note|short explanation] [once|after|when|as soon as] the [cause|root "
        "cause|fix|timeline] was [confirmed|understood|clear|agreed].",
        "[Account managers|Customer success contacts|Relationship owners|Key account leads] were "
        "[given|handed|sent|offered] a [holding statement|short script|set of talking points|plain-English "
        "summary] to [use|share|draw on|send] with [larger customers|strategic accounts|customers who "
        "asked|anxious clients].",
        "[Messages|Notices|Updates|Bulletins] [avoided|steered clear of|left out|kept away from] "
        "[speculation|guesses about the cause|technical jargon|promises about timing] and [stuck "
        "to|focused on|described only|reported] [what was known|confirmed facts|observed effects|the next "
        "update time].",
        "[A banner|An in-app notice|A header message|A pinned note] [warned|told|alerted|reminded] users "
        "[about|of] the [problem|degraded service|known issue|slowness] and [pointed|linked|directed|sent] "
        "them to the [status page|help article|support portal|latest update].",
        "The [incident channel|bridge|war room|coordination thread] [kept|held|maintained|recorded] a "
        "[running|timestamped|rolling|minute-by-minute] [log|timeline|record|account] that "
        "[later|afterwards|in the end|eventually] [formed|became|fed|seeded] the "
        "[review|postmortem|report|timeline section].",
        "[Leadership|The executive team|Senior managers|The duty director] [received|got|asked for and "
        "received|were sent] [hourly|regular|brief|scheduled] [summaries|briefings|updates|notes] [in a "
        "separate thread|by email|in a private channel|through the incident lead] so the "
        "[responders|engineers|working group|technical team] could [stay focused|keep "
        "working|concentrate|avoid interruptions].",
        "[The review meeting|A walkthrough of the findings|The debrief session|A readout] is "
        "[recorded|minuted|written up|captured] for [colleagues|people|teams|anyone] who [could not "
        "attend|missed it|work other hours|sit in other time zones].",
        "[Translated|Localised|Regional|Plain-language] [versions|copies|summaries|notes] of the "
        "[notice|update|announcement|resolution message] [went out|were sent|followed|were published] "
        "[for|to] [offices|teams|customers|users] [outside|beyond|away from] the [head office|main "
        "English-speaking markets|central region|primary site].",
        "[A first|The initial|An early|The opening] [notice|update|acknowledgement|message] [went out|was "
        "posted|was published|appeared] within [ten|fifteen|twenty|twelve] minutes of "
        "[declaring|opening|raising|confirming] the [incident|problem|outage|fault], [before|well "
        "before|even before|long before] the [cause|diagnosis|root cause|fix] was "
        "[known|clear|found|understood].",
        "[Regulators|Auditors|Insurers|Major partners] were [informed|notified|told|briefed] [within the "
        "agreed|inside the contractual|in line with the required|well within the] [time "
        "limit|deadline|notice period|window], [following|using|according to|as set out in] the "
        "[notification|escalation|disclosure|communication] [procedure|checklist|playbook|template].",
        "[Social media|Community forum|Public review|Partner portal] [questions|posts|comments|threads] "
        "were [answered|handled|picked up|acknowledged] by the [support|community|communications|social] "
        "team [with|using|pointing to|linking] the [same|agreed|approved|latest] [wording|status "
        "link|statement|message] [seen on|used on|posted on|published on] the status page.",
        "[Sales|Account|Partner|Customer success] [teams|colleagues|managers|leads] [joined|were "
        "given|were added to|subscribed to] a [dedicated|separate|short-lived|temporary] [update "
        "list|channel|thread|mailing list] [so that|so] they [could|were able to|would] [answer|respond "
        "to|field|handle] [customer|client|prospect|partner] [calls|questions|emails|messages] "
        "[consistently|with confidence|without guessing|accurately].",
        "[Draft statements|Templates|Draft notices|Message skeletons] for "
        "[common|typical|recurring|predictable] [failure|outage|incident|degradation] "
        "[types|scenarios|patterns|cases] are now [kept|stored|pre-approved|prepared] [ready|in advance|in "
        "the runbook|next to the playbook] [so|so that] the [first|opening|initial] "
        "[update|notice|message] [goes out|is sent|can be posted|leaves] [faster|without delay|in "
        "minutes|straight away].",
        "[Internal|Staff|Company-wide|Intranet] [banners|announcements|notes|messages] "
        "[told|asked|reminded|urged] [colleagues|employees|people|everyone] [not to|to avoid|to hold off "
        "on|against] [raising|filing|logging|opening] [duplicate|further|repeat|extra] "
        "[tickets|reports|requests|cases] [while|as long as|during the time] the "
        "[problem|incident|fault|disruption] [was|remained|stayed] [open|active|under investigation].",
        "The [final|closing|summary|wrap-up] [update|notice|message|note] "
        "[listed|named|described|summarised] [what happened|the cause|the timeline|the impact], "
        "[what|which steps|which actions|the fixes] [were taken|had been made|followed|came next] and "
        "[where|how] to [read|find|follow|comment on] the [full|detailed|complete|written] "
        "[review|report|write-up|postmortem].",
    ],
    "decision.rationale": [
        "It is the option with the [shortest|clearest|quickest|most direct|least risky] [path to "
        "value|route to a working result|way to show progress|road to first users] [among those "
        "assessed|of the shortlisted options|on the table|that the group compared].",
        "It keeps [operational|delivery|security|financial] risk [within|inside|below|under] the "
        "[level|threshold|limit|tolerance] the [sponsor|steering group|leadership team|budget holder] "
        "[accepted|agreed|signed off|set].",
        "It [reuses|builds on|draws on|makes use of] [skills|expertise|experience|tooling] the team "
        "[already has|knows well|uses every day|has built up over years], so "
        "[onboarding|training|ramp-up|learning time] stays [short|modest|minimal|manageable].",
        "It [avoids|sidesteps|skips|does not need] a [long|lengthy|months-long|drawn-out] "
        "[procurement|tendering|contract negotiation|supplier selection] [process|exercise|cycle|round].",
        "It [leaves room|keeps the door open|lets us come back|allows us] to "
        "[revisit|reconsider|revise|reopen] the [choice|decision|approach|trade-off] once [usage data|real "
        "traffic data|pilot data|customer feedback] [is available|arrives|comes in|has been gathered].",
        "It has the [lowest|smallest|most predictable|best-understood] [total cost|running cost|cost of "
        "ownership|ongoing spend] over [three|five|four] years in the [finance model|business case|cost "
        "comparison|spreadsheet the group reviewed].",
        "[Both|Two|Several|The other] [alternatives|options|candidates|proposals] "
        "[needed|required|depended on|assumed] [specialist hires|new licences|a data migration|custom "
        "hardware] that [this one|the chosen option|our preferred route|this path] [does not|avoids|can do "
        "without|sidesteps].",
        "It [scales|grows|stretches|extends] [in small steps|incrementally|gradually|one team at a time], "
        "so [spend|effort|exposure|commitment] [tracks|follows|matches|rises with] [actual demand|real "
        "adoption|proven value|measured usage].",
        "The [pilot|prototype|spike|proof of concept] [showed|demonstrated|confirmed|suggested] that it "
        "[meets|handles|copes with|satisfies] the [performance|latency|throughput|accessibility] "
        "[target|requirement|goal|bar] with [room to spare|a comfortable margin|headroom|capacity left "
        "over].",
        "It [fits|matches|aligns with|suits] the [existing|current|agreed|published] "
        "[architecture|platform direction|technology standards|reference design] [rather than|instead "
        "of|without] [adding|introducing|creating|bolting on] [another|a new|a separate|an extra] "
        "[stack|silo|integration pattern|toolchain].",
        "[Support|Operations|The service desk|Maintenance] [teams|staff|colleagues|engineers] "
        "[preferred|asked for|backed|favoured] it because it is [easier|simpler|cheaper|quicker] to "
        "[run|monitor|troubleshoot|patch] [day to day|out of hours|at scale|over its lifetime].",
        "It [reduces|cuts|shrinks|trims] [manual steps|hand-offs|duplicate data entry|reconciliation work] "
        "[the most|by the largest margin|more than any alternative|substantially], which was the "
        "[main|biggest|loudest|most common] [complaint|pain point|request|frustration] from [users|the "
        "business|frontline staff|pilot teams].",
        "The [exit cost|cost of switching later|lock-in|migration effort away] is "
        "[low|modest|acceptable|bounded] because [data|configuration|records|content] [stays|remains|is "
        "kept|lives] in [open|standard|portable|well-documented] [formats|schemas|structures].",
        "[Legal|Privacy|Security|Compliance] [reviewers|colleagues|advisers] "
        "[found|raised|identified|reported] [fewer|smaller|milder|less serious] "
        "[concerns|objections|findings|issues] with it than with the [alternatives|other options|competing "
        "proposals|rest of the shortlist].",
        "It [keeps|preserves|maintains|protects] a [clean|clear|single|simple] [audit trail|source of "
        "truth|ownership line|data lineage] [that|which] [auditors|controllers|reviewers|regulators] "
        "[asked for|requested|insisted on|praised] [in past reviews|explicitly|last year|before].",
        "The [team|engineers|operators|analysts] who will [run|own|maintain|live with] it [day to day|long "
        "term|after launch|once the project ends] [chose|recommended|voted for|argued for] it "
        "[after|following|on the strength of|based on] a [hands-on trial|short bake-off|side-by-side "
        "test|week of prototyping].",
        "It [can|may|is able to] be [introduced|phased in|switched on|adopted] [one team at a time|region "
        "by region|in small waves|behind a toggle], [which|and this] [limits|keeps down|reduces|caps] the "
        "[blast radius|disruption|risk|exposure] of [mistakes|early problems|surprises|teething issues].",
        "[Accessibility|Localisation|Offline use|Mobile support] [comes|is included|arrives|is provided] "
        "[built in|out of the box|by default|without extra work], [whereas|while|where] the "
        "[alternatives|other candidates|rival options|competing tools] [needed|required|relied on|would "
        "have needed] [custom work|add-ons|paid extensions|workarounds].",
        "[Published|Independent|Peer|Reference] [benchmarks|case studies|customer references|user reviews] "
        "[from|by|across|among] [similar|comparable|peer|larger] "
        "[organisations|companies|teams|businesses] [supported|backed|favoured|confirmed] [it|this "
        "choice|the option|the approach] [consistently|clearly|over the others|in most cases].",
        "It [lets|allows|enables|frees] [staff|the team|colleagues|specialists] to [stop|retire|drop|let "
        "go of] [a|one] [fragile|brittle|hand-maintained|undocumented] [spreadsheet|macro|batch "
        "script|workaround] that [breaks|fails|misfires|needs fixing] [every quarter|at month-end|whenever "
        "inputs change|several times a year].",
    ],
    "decision.risks": [
        "The [estimate|plan|timeline|cost forecast] [assumes|relies on|depends on|takes for granted] that "
        "[current staffing levels|today's headcount|the present team size|existing capacity] [hold|stays "
        "stable|continues|remains in place] [through the next two quarters|for the whole build|until "
        "launch|for at least a year].",
        "[Vendor|Supplier|Licence|Subscription] [pricing|terms|rates|discounts] could "
        "[change|rise|shift|be renegotiated] at the [next renewal|end of the initial term|next contract "
        "review|first price review].",
        "The [choice|decision|approach|new set-up] [increases|adds to|raises|grows] the team's "
        "[maintenance load|support burden|operational toil|patching workload] [noticeably|in the short "
        "term|for at least a year|until the old path is retired].",
        "[Some|A few|Several|Two] [stakeholders|department heads|user groups|senior reviewers] "
        "[preferred|argued for|favoured|pushed for] a [different|rival|cheaper|more ambitious] option and "
        "will need to be [brought along|won over|kept closely informed|consulted at each step].",
        "[Adoption|Uptake|Take-up|Engagement] may be [slower|patchier|lower|more uneven] than "
        "[planned|forecast|hoped|modelled] if [training|support material|change management|communication] "
        "[falls behind|lags|is under-resourced|starts late].",
        "[Performance|Latency|Throughput|Stability] at [full scale|peak load|year-end volumes|ten times "
        "today's traffic] has [only been estimated|not yet been proven|been modelled, not measured|only "
        "been tested in a lab].",
        "[Knowledge|Expertise|Know-how|Experience] of the [new|chosen|selected|unfamiliar] "
        "[stack|framework|platform|tooling] [sits with|rests on|is concentrated in|depends on] [one or two "
        "people|a very small group|a single contractor|a couple of senior engineers] [for now|at the "
        "moment|in the early months|until training catches up].",
        "[Integration|Interface|Connector|Data exchange] work with [older|legacy|inherited|third-party] "
        "[systems|applications|platforms|feeds] [could|may|might] [take longer|cost more|surface more "
        "surprises|need more testing] than the [plan|estimate|schedule|budget] "
        "[allows|assumes|expects|provides for].",
        "[Regulatory|Contractual|Data-protection|Audit] [requirements|expectations|obligations|rules] "
        "[could|may|might] [tighten|change|be reinterpreted|expand] before the "
        "[work|build|migration|programme] [is finished|completes|lands|wraps up].",
        "[Running|Operating|Maintaining|Supporting] [two|parallel|old and new|overlapping] "
        "[systems|processes|environments|tool sets] during the [transition|cut-over|changeover|migration] "
        "[doubles|stretches|strains|inflates] [effort|costs|the support load|attention] for a [while|few "
        "months|quarter|period].",
        "The [option|decision|approach|plan] [depends|relies|leans] on a [vendor roadmap|partner "
        "commitment|supplier promise|third-party feature] that [has not|is not yet|may not be] "
        "[shipped|delivered|guaranteed|contractually binding].",
        "[Data migration|Record conversion|History transfer|Archive import] "
        "[errors|gaps|mismatches|losses] [could|may|might] [surface|show up|come to light|appear] "
        "[only|first|late] [after|once|when] [go-live has passed|the old system is switched off|users "
        "start reconciling|month-end closes].",
        "The [approach|choice|new set-up|platform] [ties|binds|locks|commits] us to [one|a single|a "
        "specific|a proprietary] [vendor's|supplier's|cloud provider's|partner's] [roadmap|pricing|release "
        "cadence|support model] [for the next few years|for the contract term|in the medium term|until a "
        "replacement is found].",
        "[Users|Teams|Some departments|Power users] [may|could|might] [resist|push back on|work "
        "around|ignore] the [change|new process|new tool|new rules] if [the benefits|the reasons|the "
        "gains|its value] [are not|aren't] [explained|made visible|felt|communicated] "
        "[early|clearly|quickly|well].",
        "[Security|Privacy|Access|Encryption] [controls|settings|defaults|policies] [in|on|for] the "
        "[chosen|new|selected|preferred] [platform|service|product|tool] still [need|require|call "
        "for|await] [a full|an independent|a formal|a detailed] [review|assessment|audit|sign-off].",
        "[Savings|Benefits|Efficiency gains|Time savings] in the [business case|plan|forecast|proposal] "
        "[assume|rely on|depend on|presume] [full|high|rapid|near-universal] "
        "[adoption|usage|take-up|uptake] [within|by the end of|inside|over] the [first year|first two "
        "quarters|pilot period|initial contract].",
        "[Key|Critical|Essential|Specialist] [features|integrations|reports|connectors] "
        "[are|remain|sit|stay] on the [vendor's|supplier's|partner's|platform's] [roadmap|wish list|future "
        "plan|backlog] [rather than|instead of|and not] [in|among|inside] the "
        "[current|shipping|released|available] [product|version|edition|release].",
        "[Cut-over|Switch-over|Go-live|Changeover] [timing|scheduling|planning|coordination] "
        "[clashes|overlaps|competes|collides] with [audit fieldwork|peak season|the financial "
        "year-end|another major release], [which|and this] [leaves|gives|allows] [little|limited|not "
        "much|scarce] [slack|room|margin|time] [for|to absorb|to handle|to deal with] "
        "[slippage|surprises|rework|delays].",
        "[Ongoing|Recurring|Hidden|Indirect] [costs|effort|fees|overheads] such as [training|storage "
        "growth|premium support|extra licences] [may|could|might] [exceed|outgrow|overtake|erode] the "
        "[estimate|savings|forecast|budget] [over time|after the first year|as usage grows|at scale].",
        "[Decommissioning|Retiring|Switching off|Removing] the [old|legacy|previous|current] "
        "[system|tool|process|platform] [depends on|waits for|hinges on|requires] [every|all|each of "
        "the|the last few] [downstream|dependent|linked|connected] [teams|reports|feeds|interfaces] "
        "[moving|migrating|switching|being rebuilt] [first|in time|on schedule|beforehand].",
    ],
}
