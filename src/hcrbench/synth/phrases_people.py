"""Sentence templates for policies, profiles, announcements and team news (``policy.*``, ``profile.*``,
``announce.*``, ``news.*``).

Pure data, part of :data:`hcrbench.synth.phrases_docs.POOLS`; ``[a|b|c]`` groups are expanded per document by
:func:`hcrbench.synth.text.vary`. Policy templates may use ``{word}`` (policy, standard, ...), profile templates
``{first}`` (the person's first name).
"""

from __future__ import annotations

POLICY = {
    "policy.scope": [
        "This {word} [covers|applies to|includes|extends to] [permanent and fixed-term|salaried and "
        "hourly|full-time and part-time|permanent and temporary] employees of every [Meridian "
        "entity|subsidiary|legal entity in the group|company in the group].",
        "[Interns|Apprentices|Graduate trainees|Placement students] and [apprentices|trainees|working "
        "students|summer hires] are [covered|included|in scope] from their [first day|start date|first "
        "working day].",
        "[Staff|Employees|Colleagues|People] [seconded|assigned|posted|loaned] to a [customer site|partner "
        "office|client project|joint venture] [remain|stay|are still] [covered|in scope|bound by it] while "
        "they are [away|on assignment|working there|seconded].",
        "[Employees|Staff|Colleagues|People] on [notice|garden leave|a fixed end date|a phased exit] "
        "[remain|stay|are still] [covered|in scope|bound by this {word}] until their [last working "
        "day|leaving date|final day|contract ends].",
        "[Leaders|Executives|Senior managers|Directors] are [bound by|subject to|held to|covered by] the "
        "same rules as everyone else; there is no [separate|special|softer|private] "
        "[executive|leadership|senior|management] version.",
        "Where a [collective agreement|works council agreement|local labour law|union agreement] applies, "
        "its terms are [read together with|applied alongside|combined with|considered with] this {word}, "
        "and [the more favourable rule applies|the agreement prevails on any conflict|local terms win "
        "where they are more generous|any conflict is settled in the employee's favour].",
        "[Contractors|Agency workers|Freelancers|Consultants] [follow|observe|respect|comply with] the "
        "[parts|sections|rules|provisions] of this {word} that their [contract|engagement letter|statement "
        "of work|agency agreement] [names|lists|refers to|incorporates].",
        "[Board members|Non-executive directors|Advisory board members|Trustees of the staff pension "
        "scheme] [follow|observe|are asked to respect|are held to] the "
        "[relevant|applicable|pertinent|matching] [sections|clauses|parts|provisions] of this {word} "
        "[when|whenever|while|as long as] they [act|work|serve|represent the company] [on company "
        "business|in that capacity|for the group|in an official role].",
        "[Newly acquired|Recently merged|Freshly integrated|Newly purchased] "
        "[businesses|subsidiaries|companies|units] [adopt|move onto|switch to|come under] this {word} "
        "[within|inside|no later than|in under] [six|nine|twelve|eighteen] months [of|after|following] "
        "[completion|the deal closing|the acquisition|integration day].",
        "[Volunteers|Work-experience students|Job shadows|Visiting researchers] are [covered|included|in "
        "scope] [only|just|solely] [where|when|if] [their placement letter|the host manager|their "
        "agreement|the visit plan] [says so|states it|confirms it|refers to this {word}].",
    ],
    "policy.definitions": [
        "Working day: [Monday to Friday|a weekday|any scheduled weekday], [excluding|except|not "
        "counting|other than] [public holidays|bank holidays|statutory holidays|official holidays] in the "
        "employee's [home location|contractual location|base country|registered office].",
        "Line manager: the person [shown|listed|recorded|named] as the employee's [manager|direct "
        "supervisor|reporting manager|people leader] in the [HR system|people directory|organisation "
        "chart|personnel record].",
        "Owner team: the team [named|listed|shown|identified] [at the top of this document|in the header "
        "above|in the document details|on the first page], [responsible|accountable] for [keeping it "
        "current|maintaining it|reviewing it|answering questions about it].",
        "Approver: the [senior leader|executive|accountable manager|designated leader] "
        "[accountable|responsible|answerable] for the [content|wording|substance|rules] of this {word} "
        "[and its exceptions|and every later revision|as a whole|and how it is applied].",
        "Request: any [application|claim|submission|ask] made under this {word} through the [self-service "
        "portal|request form|HR portal|approved workflow], [including|as well as] "
        "[amendments|cancellations|resubmissions|follow-up changes] [to it|made later|after approval|of an "
        "earlier one].",
        "Home location: the [office|site|workplace|base|building|campus] named in the employee's "
        "[contract|offer letter|employment terms], or their country of residence if [fully "
        "remote|home-based|location-independent|field-based] by contract.",
        "Exception: a [documented|recorded|written|logged], [time-limited|temporary|dated|bounded] "
        "[departure|deviation|variation] from this {word} [approved|authorised|agreed|signed off] in "
        "writing.",
        "Material change: [an update|a revision|an amendment|a change] that "
        "[alters|affects|modifies|shifts] [entitlements|limits|obligations|approval steps], as opposed to "
        "[wording|formatting|clarification|typo] [fixes|edits|changes|corrections].",
        "Business need: a [documented|genuine|demonstrable|recorded] "
        "[reason|requirement|purpose|justification] [linked to|arising from|tied to|grounded in] the "
        "employee's [role|objectives|assigned work|current duties], [rather than|not|as distinct from] "
        "[personal preference|convenience|habit|comfort].",
        "Delegate: [a colleague|a deputy|a named person|an authorised stand-in] "
        "[given|granted|handed|assigned] [temporary|written|limited|time-bound] authority to "
        "[act|approve|sign|decide] [for|on behalf of|in place of] [an approver|a manager|the owner team|a "
        "budget holder] [during|for the length of|throughout] [an absence|leave|a secondment|a vacancy].",
    ],
    "policy.exceptions": [
        "Exceptions are [approved|granted|signed off|authorised] in writing by the owner team and "
        "[reviewed|re-checked|looked at again|revisited] every [six|three|twelve|four] months.",
        "An exception never applies [retroactively|backwards|to past events|to earlier periods]; it "
        "[starts|takes effect|begins|runs] [on|from] the date it is [approved|granted|signed|recorded].",
        "[Managers|Team leads|Supervisors|Department heads] cannot [grant|approve|allow|authorise] "
        "exceptions on their own, even for a [single|one-off|brief|small] [occasion|case|request|period].",
        "Requests for an exception must [explain|state|set out|describe] why the "
        "[standard|normal|usual|default] rule does not [work|fit|apply well|suit the case] and for how "
        "long.",
        "Where an exception is [refused|declined|turned down|rejected], the employee may ask the approver "
        "[named above|listed above|of this {word}|identified earlier] to [review|reconsider|look again "
        "at|revisit] the decision [within a month|in writing|once|without penalty].",
        "Exceptions [granted|approved|agreed|issued] under [earlier|previous|older|superseded] versions "
        "[stay|remain|continue to be] valid until their [stated|recorded|agreed|written] end date.",
        "[Emergencies|Urgent situations|Genuine emergencies|Safety-critical situations] are [handled|dealt "
        "with|resolved|addressed] first and [documented|written up|recorded|logged] "
        "[afterwards|later|after the fact], within [five|three|ten|a few] working days.",
        "A [register|log|list|record] of [active|open|current|approved] exceptions is "
        "[kept|maintained|held|updated] by the owner team and [shared|reported|summarised|reviewed] [each "
        "quarter|every year|at every review|twice a year].",
        "[Repeated|Recurring|Back-to-back|Rolling] exceptions for [the same|an identical|one|a single] "
        "[person|team|case|situation] [trigger|prompt|lead to|call for] [a check on|a review of|a "
        "discussion of|a conversation about] whether the {word} [itself|as written|in its current form] "
        "[needs|requires|should get|deserves] [changing|an update|a new clause|rewording].",
        "[Cost|Budget|Headcount|Tax] [implications|effects|consequences|impacts] of an exception are "
        "[checked|confirmed|reviewed|cleared] with [Finance|the budget holder|the payroll team|the tax "
        "adviser] [before|ahead of|prior to] [approval|sign-off|the decision|confirmation].",
    ],
    "policy.roles": [
        "[Employees|Colleagues|Staff members|All workers] [must|should|are expected to|are asked to] "
        "[read|know|understand|keep up with] this {word} and [follow|apply|act on|respect] it [in daily "
        "work|at all times|in every case|consistently].",
        "[Line managers|Managers|Team leads|People leaders] make sure their teams [know "
        "about|understand|are aware of|have read] this {word} and [apply|use|follow|interpret] it "
        "[consistently|fairly|the same way|evenly].",
        "The owner team [answers|handles|fields|responds to] questions, [keeps|maintains|holds] the text "
        "[current|up to date|accurate] and [reports|comments|publishes figures] on how it is used.",
        "The approver [signs off|approves|endorses|authorises] every new version and any exception with a "
        "[material|significant|notable|real] [cost|financial impact|budget effect|risk].",
        "[HR business partners|People partners|HR advisers|Employee relations specialists] "
        "[support|help|advise|coach] managers with [difficult|unusual|sensitive|complex] "
        "[cases|situations|requests|questions].",
        "[Finance colleagues|Finance business partners|Financial controllers|Budget owners|Management "
        "accountants] [check|confirm|verify|make sure] that the [figures|amounts|limits|numbers] in this "
        "{word} [match|fit|agree with|line up with] the [approved|agreed|current|signed-off] budget.",
        "[Internal auditors|Compliance officers|Risk colleagues|Controls specialists] "
        "[test|sample|check|review] [adherence|compliance|how well it is followed|its application] [from "
        "time to time|periodically|each year|on a rotating basis].",
        "[Payroll|The payroll team|Payroll specialists|The reward team] "
        "[processes|applies|handles|implements] [approved|agreed|signed-off|confirmed] "
        "[requests|changes|adjustments|entitlements] [in the next|by the following|in time for the "
        "next|within one] [pay run|payroll cycle|monthly cut-off|processing window].",
        "[Employment lawyers|In-house lawyers|Legal advisers|Our legal colleagues] [advise|comment|give "
        "guidance|are consulted] [on|about|where there is doubt over] [local law|conflicts with "
        "contracts|works council rights|cross-border cases] [when|whenever|if|as soon as] [asked|needed|a "
        "question arises|a case is unclear].",
        "[Service desk agents|People-team advisers|First-line HR colleagues|Shared-services staff] "
        "[answer|handle|log|route] [routine|everyday|simple|common] [questions|queries|requests|cases] and "
        "[pass|escalate|refer|hand] [anything|anything else that is|whatever is|everything] "
        "[unusual|complex|sensitive|ambiguous] to the owner team.",
    ],
    "policy.review": [
        "This {word} is reviewed every [year|twelve months|two years|eighteen months], or sooner if the "
        "[law|regulatory landscape|business|organisation] [changes|shifts|moves on|requires it].",
        "[Comments|Suggestions|Proposed changes|Questions] for the next review can be "
        "[sent|passed|submitted|raised] to the owner team [at any time|whenever they come up|through the "
        "feedback form|in the policy channel], [not only|and not just|rather than only] [during|in|ahead "
        "of] the [formal review|annual cycle|consultation period|review window].",
        "Each new version is [announced|published|flagged|shared] on the intranet and in the "
        "[monthly|regular|next|all-staff] [all-staff update|newsletter|company bulletin|digest].",
        "[Earlier|Previous|Older|Superseded] versions are [archived|kept|retained|stored] and can be "
        "[requested|obtained|viewed|retrieved] from the owner team.",
        "[Material|Substantial|Significant|Important] changes are [discussed|consulted on|shared|talked "
        "through] with [employee representatives|the works council|staff forums|employee groups] before "
        "they are [published|adopted|finalised|issued].",
        "[A change log|A revision table|A summary of changes|A version history] at the [end|bottom|back] "
        "of this {word} [shows|lists|records|explains] what [changed|moved|was added|was removed] in "
        "[each|every] [version|revision|edition|update].",
        "[Usage|Request|Exception|Complaint] [figures|statistics|volumes|trends] from the "
        "[past|previous|last|preceding] [year|period|cycle|twelve months] [inform|feed into|shape|guide] "
        "[each|every|the next|the annual] [review|revision|update|round of changes].",
        "[Benchmarks|Comparisons|Market surveys|Peer data] from [similar|comparable|peer|neighbouring] "
        "[employers|companies|organisations|firms] are [considered|weighed|looked at|taken into account] "
        "[at|during|as part of|in] [each|every|the] [review|revision|refresh|update].",
        "[Broken links|Outdated references|Renamed forms|Retired contacts] "
        "[found|spotted|noticed|reported] [between|outside|ahead of|in between] reviews are "
        "[fixed|corrected|updated|repaired] [straight away|without a new version|as minor edits|promptly] "
        "and [noted|logged|recorded|listed] in the [change log|revision table|version history|document "
        "history].",
        "[The review|Each review|The annual check|Every revision] [asks|checks|tests|considers] "
        "[whether|if] the {word} is [still|really|actually|genuinely] [needed|read|understood|followed], "
        "not only [whether|if] its [figures|wording|references|examples] are [current|correct|accurate|up "
        "to date].",
    ],
}

PROFILE = {
    "profile.background": [
        "Before Meridian, {first} spent [several|a few|six|many] years in [consulting|management "
        "consulting|an audit firm|a boutique advisory firm], mostly on [finance "
        "transformation|supply-chain|operating-model|post-merger integration] work.",
        "{first} studied [computer science|mathematics|economics|physics|linguistics] [at "
        "university|part-time|in evening classes|abroad] and moved into this field after a first job in "
        "[customer support|technical writing|a bank's back office|market research|a call centre].",
        "{first} previously worked at a "
        "[logistics|food-delivery|health-insurance|travel-booking|renewable-energy] start-up [for several "
        "years|as an early hire|for a while|through two funding rounds] and brings a [strong operations "
        "mindset|bias for shipping|feel for scrappy prioritisation|practical streak].",
        "{first} came to Meridian from [the public sector|the civil service|a city council|a hospital "
        "trust|a university], where the work [centred|focused|was built|mostly turned] on [large "
        "programmes|citizen services|procurement reform|records management].",
        "{first} started out as a [teacher|journalist|lab technician|paramedic|retail manager] and "
        "[still|to this day|even now|always] enjoys [running internal training sessions|explaining things "
        "simply|mentoring juniors|writing clear guides].",
        "{first} has [worked|lived|studied] in [three|four|two|five] countries and speaks "
        "[four|three|two|five] languages [fluently|with varying confidence|at work and at home|to "
        "different levels].",
        "{first} joined through the [graduate programme|apprenticeship scheme|internship "
        "programme|returners' programme] and has since [rotated through|worked in|spent time in|moved "
        "across] [two|three|several] departments [before settling here|along the way|in quick "
        "succession|on short assignments].",
        "[Earlier on|Years ago|Before moving into this line of work|Some years back], {first} "
        "[ran|managed|co-founded|looked after] a [small|family|local|community] [bakery|bookshop|design "
        "studio|bicycle repair shop|translation agency] and [learned|picked up|came away with] [a lot "
        "about|a taste for|first-hand lessons in] [cash flow|customer service|negotiation|keeping things "
        "simple].",
        "{first} spent [a decade|several years|most of the last decade|the early career] in [retail "
        "banking|hospitality|manufacturing|telecoms|pharmaceuticals] before "
        "[moving|switching|pivoting|crossing over] into [software|technology|product work|digital "
        "services].",
        "{first} holds a [master's degree|doctorate|diploma|professional qualification] in [operations "
        "research|accounting|industrial design|information science|psychology] and "
        "[still|regularly|occasionally|now and then] [lectures|writes|reviews papers|coaches students] on "
        "the subject.",
    ],
    "profile.style": [
        "{first} prefers [written questions|short written notes|messages|async questions] [with|that "
        "include|carrying|that come with] [context|background|links|a clear goal] over [quick "
        "calls|impromptu meetings|hallway chats|video calls].",
        "{first} keeps [Friday afternoons|Monday mornings|Wednesday afternoons|the last hour of the day] "
        "[free of meetings|clear|meeting-free|unbooked] for [focused work|deep work|reading|planning].",
        "The best way to get a [quick|fast|useful|clear] answer from {first} is a "
        "[short|brief|concise|direct] message with a [clear ask|specific question|deadline|suggested "
        "answer].",
        "{first} is happy to [review|read|comment on|look at] [drafts|early ideas|rough notes|sketches] "
        "[early|at any stage|before they are polished|while they are still rough].",
        "{first} [blocks|protects|reserves|guards] mornings for [deep work|writing|analysis|design "
        "thinking]; meetings are [easiest|best|simplest to book|most welcome] after [lunch|midday|two "
        "o'clock|the early afternoon].",
        "{first} likes to [agree|set|write down|settle] [goals|outcomes|success criteria|expectations] at "
        "the start of a piece of work and [check in|catch up|review progress|compare notes] [weekly|every "
        "fortnight|at each milestone|briefly each week].",
        "{first} [values|appreciates|welcomes|asks for] [blunt|candid|honest|direct] "
        "[feedback|comments|pushback|disagreement], [ideally|preferably|especially|best] [in writing|face "
        "to face|in a one-to-one|early on].",
        "{first} [finds|considers|calls] [diagrams|sketches|whiteboard drawings|worked examples] [far more "
        "useful|much clearer|easier to follow|quicker to digest] than [long|dense|wordy|sprawling] "
        "[documents|emails|slide decks|threads].",
        "{first} [likes|prefers|asks for|appreciates] [agendas|pre-reads|clear goals|a short brief] "
        "[shared|sent|circulated|posted] [a day|the evening|a few hours|some time] before "
        "[meetings|workshops|reviews|calls], [and|but] is [happy|glad|fine|relaxed] to [join|attend|drop "
        "into|help with] [short-notice|impromptu|urgent|ad hoc] [calls|sessions|chats|huddles] "
        "[when|if|where] [something|a problem|a decision|a customer issue] is "
        "[urgent|blocking|pressing|time-critical].",
        "[Working hours|Core hours|Availability|Office days] for {first} [vary|shift|change|differ] "
        "[across|through|during|over] the [week|month|year|quarter], so the [shared calendar|team "
        "calendar|status message|out-of-office note] is the [best|most reliable|quickest|surest] "
        "[guide|reference|place to check|source].",
    ],
    "profile.interests": [
        "Outside work, {first} [runs|hosts|helps run|co-organises] the office [book club|walking "
        "group|running club|board-game evening|film night], which [meets monthly|always welcomes "
        "newcomers|has a loyal crowd|keeps a shared calendar].",
        "{first} [volunteers|gives time|serves|helps out] as a [mentor|coach|guide|sponsor] in the "
        "[women-in-tech network|local coding club|career-changers' network|school outreach "
        "programme|apprentice network].",
        "{first} [helps organise|co-runs|judges|always signs up for] the [yearly|annual|spring|autumn] "
        "internal [hackathon|ideas day|charity fundraiser|volunteering week].",
        "{first} is one of the [trained|volunteer|certified|designated] [mental health first aiders|first "
        "aiders|fire wardens|wellbeing champions] for the [office|building|floor|site] and [keeps the "
        "training current|is easy to find|is glad to help|refreshes the course every year].",
        "{first} [gives a talk|presents|runs a session|leads a workshop] at the "
        "[monthly|regular|quarterly] [lunch-and-learn series|tech talks|brown-bag "
        "sessions|knowledge-sharing hour] [now and then|once or twice a year|whenever a good topic comes "
        "up|fairly regularly].",
        "{first} [usually|often|mostly|happily] spends [weekends|spare evenings|holidays|free afternoons] "
        "[hiking|gardening|at the pottery wheel|bouldering|birdwatching|at choir practice] [with "
        "family|with friends|with a local club|whenever the weather allows].",
        "{first} [bakes sourdough|brews coffee|cooks curries|makes pastries|makes jam] [as a hobby|at "
        "weekends|in spare moments|for fun] and [brings|shares|occasionally brings|has been known to "
        "bring] the [results|experiments|best batches|leftovers] to the office.",
        "{first} [plays|practises|teaches|is learning] [the cello|the guitar|piano|the drums|the violin] "
        "and [performs|plays|sings|rehearses] with a [local|community|semi-professional|neighbourhood] "
        "[orchestra|band|ensemble|choir].",
        "{first} is [training for|working towards|signed up for|preparing for] a [half marathon|cycling "
        "tour|triathlon|long-distance walk|charity swim] [later this year|next spring|this autumn|in the "
        "coming months].",
        "{first} [restores|repairs|rebuilds|tinkers with] [old bicycles|vintage radios|antique "
        "furniture|classic motorbikes|mechanical watches] [in a garage workshop|on weekends|with a "
        "neighbour|as a long-running project] and [will happily|is glad to|loves to|can] [talk "
        "about|explain|show photos of|share tips on] [it|the latest project|the process|the finds].",
        "{first} [speaks|is learning|practises|keeps up] "
        "[Portuguese|Japanese|Swahili|Finnish|Arabic|Korean] [for|because of|thanks to|out of love for] "
        "[family reasons|travel|a partner's family|a long-held curiosity] and [welcomes|enjoys|looks "
        "for|seeks out] [conversation practice|language exchanges|book recommendations|film suggestions].",
        "[At weekends|In the evenings|On holiday|Most summers], {first} [volunteers|helps out|lends a "
        "hand|works shifts] at [a community garden|an animal shelter|a food bank|a youth football club|a "
        "repair cafe] [nearby|in the neighbourhood|in town|close to home].",
    ],
}

ANNOUNCE = {
    "announce.policy": [
        "The [full|complete|signed|official] text is in the [policy library|document library|policy "
        "hub|handbook section] on the intranet[, next to the previous version|, with a printable copy| "
        "alongside a short summary|, linked from the home page].",
        "[Requests|Claims|Applications|Bookings] already [approved|agreed|signed off|accepted] under the "
        "[previous|earlier|old|former] version are not [affected|changed|reopened|touched].",
        "[Managers|Team leads|People leaders|Supervisors] have received a [short|brief|one-page|concise] "
        "[briefing|summary|note|pack] so that they can [answer questions|explain the change|help their "
        "teams|handle queries].",
        "The owner team will run [two|three|a couple of|several] open [Q&A sessions|drop-in "
        "calls|question-and-answer slots|office hours] over the next [fortnight|two weeks|month|few weeks].",
        "The [self-service portal|request form|HR portal|online form] has been updated to "
        "[reflect|show|match|use] the new [figures|limits|amounts|rules].",
        "[A summary|A one-page summary|A short explainer|A plain-language guide] of [what changed|the "
        "differences|the main changes|the new rules] [sits|is pinned|is posted|is linked] [at the top "
        "of|next to|alongside|above] the [full text|document|policy page|new version].",
        "[Questions|Concerns|Queries|Unusual cases] that the [guidance|FAQ|summary|briefing] does not "
        "[answer|cover|settle|resolve] can go to the owner team [through the usual form|by email|via the "
        "service desk|in the policy channel].",
        "[Translations|Local-language versions|Regional summaries|Translated copies] [will follow|are "
        "being prepared|come out|will be published] [within|in] [two|three|a few] weeks.",
        "[Examples|Worked examples|Case studies|Scenarios] [showing|illustrating|explaining|walking "
        "through] [how|when|where] the [new|revised|updated|changed] [rules|limits|steps|thresholds] "
        "[apply|work|bite|take effect] [are|have been] [added|included|appended|published] [at the end|in "
        "an annex|on a separate page|in the FAQ].",
        "[Training|A short e-learning module|A refresher|A micro-course] on the [changes|new "
        "version|updated rules|revisions] [will be|is to be|is going to be|should be] [assigned|made "
        "available|published|rolled into the learning portal] [to|for] [everyone affected|managers "
        "first|all staff|the teams concerned] [this month|shortly|over the coming weeks|next quarter].",
    ],
    "announce.meaning": [
        "For [most people|the majority of colleagues|nearly everyone|most teams], nothing [changes|is "
        "different|shifts|moves] [day to day|in daily work|in practice|straight away].",
        "[Managers|Team leads|People leaders|Line managers] will receive a [short|brief|compact|two-page] "
        "[briefing pack|summary|note|set of talking points] [this week|in the coming days|shortly|before "
        "the change].",
        "The [intranet|company wiki|staff portal|handbook] has been [updated|refreshed|amended|revised] "
        "with the [details|full details|practical detail|specifics].",
        "There will be a [short|brief|fifteen-minute|dedicated] [Q&A session|question slot|open "
        "discussion|segment] at the next [all-hands|town hall|company meeting|department briefing].",
        "If this [affects|changes|upsets|interferes with] a [plan|booking|holiday|commitment] you have "
        "already made, [talk to|speak with|check with|contact] your manager first.",
        "We will [share|send|publish|post] a [follow-up|short update|progress note|review] once the [first "
        "month|first few weeks|first quarter|initial period] is over.",
        "[Nothing|No action|No step|No form] is [needed|required|expected] from you [right now|today|at "
        "this stage|for the moment]; [changes|updates|adjustments|new steps] [apply|take effect|kick "
        "in|happen] [automatically|in the background|without any action|on their own].",
        "[Questions|Worries|Concerns|Doubts] can be [raised|asked|shared|posted] "
        "[anonymously|openly|confidentially|at any time] through the [feedback form|staff survey "
        "tool|question box|people team's inbox].",
        "[Part-time|Shift-based|Field-based|Site-based] [colleagues|staff|teams|employees] [may|will|can] "
        "[see|notice|feel|experience] [small|a few|some|minor] [differences|changes|adjustments|effects], "
        "which [managers|team leads|the people team|local leads] will [explain|walk through|clarify|cover] "
        "[individually|in team meetings|one to one|on site].",
        "[Existing|Current|Ongoing|Open] [requests|arrangements|approvals|commitments] [carry "
        "on|continue|stand|remain valid] [as before|unchanged|as agreed|without interruption] "
        "[while|as|during the time] the [new|updated|revised] [arrangements|rules|process|set-up] [settle "
        "in|bed in|take hold|get going].",
        "[Feedback|Comments|Reactions|Experiences] from the first [weeks|month|cycle|few weeks] will "
        "[shape|inform|guide|feed into] any [adjustments|tweaks|refinements|changes] [later on|in the next "
        "version|before the next review|down the line].",
        "[Line managers|Team leads|Supervisors|People leaders] [can|may|are able to|will] [approve|sign "
        "off|agree|confirm] [most|routine|everyday|standard] [requests|cases|arrangements|questions] "
        "[themselves|directly|locally|without escalation] [under|with|following|using] the "
        "[new|updated|revised|simplified] [rules|process|guidance|set-up].",
        "[A recording|Slides|A short video|Written notes] from the [briefing|launch session|all-hands "
        "segment|Q&A] will be [available|posted|shared|uploaded] [on the intranet|in the staff portal|on "
        "the news page|in the team channel] for [anyone|colleagues|people|those] who [missed it|could not "
        "join|work shifts|were on leave].",
    ],
    "announce.project": [
        "The [demo|showcase|walkthrough|preview] takes about [ten|fifteen|twenty|twelve] minutes and will "
        "be followed by [questions|a short Q&A|open discussion|time for feedback].",
        "[Early feedback|Initial feedback|Feedback so far|The first feedback] from [pilot "
        "users|testers|early adopters|the first teams] [has been|is|has proved|has felt] "
        "[encouraging|positive|constructive|promising].",
        "There is still room in the [pilot group|early access group|trial|beta] for [a few|two or "
        "three|several|some] more [teams|departments|volunteers|groups].",
        "The project space on the intranet has the [latest|current|most recent|up-to-date] "
        "[plan|timeline|roadmap|schedule] and [contacts|a list of contacts|the team list|who to ask].",
        "[Suggestions|Ideas|Requests|Comments] for the next phase are welcome in the project "
        "[channel|space|inbox|forum] [until the end of the month|at any time|before the next "
        "checkpoint|ahead of planning].",
        "[A recording|Slides|A written summary|Notes] of the [session|demo|presentation|walkthrough] will "
        "be [shared|posted|published|made available] [afterwards|the same day|within a day|on the project "
        "page].",
        "[Colleagues|Teams|People|Anyone] [interested in|curious about|keen on|wanting to try] the "
        "[new|upcoming|pilot] [tools|features|way of working|process] can [sign up|register|put their name "
        "down|volunteer] [through the form|in the channel|with the project team|on the project page].",
        "The [team|project team|core team|delivery team] [thanks|is grateful to|wants to "
        "thank|appreciates] [everyone|all the colleagues|every volunteer|the testers] who "
        "[tested|tried|reviewed|commented on] [early versions|prototypes|drafts|the first builds].",
        "[Training sessions|Onboarding sessions|Walkthroughs|Hands-on sessions] for the "
        "[first|next|second|wider] [wave|group|cohort|round] [start|begin|open|are being scheduled] "
        "[soon|shortly|in the coming weeks|once the pilot closes].",
        "[Dates|Milestones|Timings|Phases] [may|might|could|are likely to] [move|shift|change|adjust] "
        "[as|while|because|since] the [pilot|trial|first phase|early testing] [teaches|shows|tells] us "
        "[more|what works|where the gaps are|what users need]; [updates|changes|revisions|notes] [will "
        "appear|are posted|will be shared|go out] [in the project space|on the project page|in the "
        "channel|in this series of posts].",
        "[Anyone|Colleagues|Teams|People] [affected by|touched by|involved in|relying on] the "
        "[current|old|existing|legacy] [process|tools|system|workflow] [will|should|can expect to] [be "
        "given|receive|get|be sent] [a personal|a direct|a tailored|an individual] "
        "[note|invitation|briefing|message] [before|well before|long before|some time before] "
        "[anything|the first change|go-live|the switch] [happens|takes effect|is made|lands].",
    ],
    "announce.system": [
        "Please [save your work|close open documents|finish any edits|save drafts] and [sign out|log "
        "off|close the application|exit] before the [window|maintenance|work|upgrade] "
        "[starts|begins|opens].",
        "[Mobile|Remote|Offline|Tablet] access will also be [unavailable|paused|interrupted|off] during "
        "the [window|maintenance|upgrade|work].",
        "If something still does not [work|behave|load|look right] [afterwards|after the window|once the "
        "work is done|the next morning], raise a ticket with the [service desk|helpdesk|support team|IT "
        "desk].",
        "The [window|slot|timing|date] was [chosen|picked|selected|set] to [avoid|stay clear "
        "of|sidestep|dodge] [month-end processing|payroll runs|peak trading|reporting deadlines].",
        "[Automated|Scheduled|Background|Overnight] jobs [scheduled|due|planned|queued] during the window "
        "will [run|resume|complete|catch up] once the service is back.",
        "[Bookmarks|Saved links|Shortcuts|Favourites] [keep working|stay valid|continue to work|will still "
        "work]; [no|none of your] [settings|preferences|data|saved views] [need|needs] to be "
        "[changed|re-entered|moved|recreated].",
        "The [status page|service health page|IT news page|operations channel] will "
        "[show|carry|post|announce] [progress|updates|the all-clear|any delays] [during|throughout|over "
        "the course of|while] the [work|window|maintenance|upgrade].",
        "[After|Following|Straight after] the [upgrade|change|maintenance|update], you [may|might|could] "
        "[be asked|need|be prompted] to [sign in again|clear your browser cache|accept new terms|reload "
        "the page].",
        "[After|Following|Once] the [change|update|work|upgrade] [is done|is complete|has finished|is "
        "over], [single sign-on|the sign-in page|the authenticator app|multi-factor sign-in] "
        "[may|might|could|will probably] [ask|prompt] you to [confirm|re-verify|approve|re-register] your "
        "[device|phone|account|sign-in] [once|one more time|again].",
        "[Colleagues|Teams|Staff|People] [working|on shift|based|travelling] in [other time zones|early "
        "shifts|night shifts|distant regions] [should|may want to|are asked to|can] "
        "[plan|arrange|schedule|reorganise] [around|for|ahead of] the "
        "[window|maintenance|downtime|interruption] [in advance|with their manager|now|before it starts].",
    ],
    "announce.people": [
        "The [handover|transfer|hand-off|transition] of current [responsibilities|work|duties|commitments] "
        "will be [complete|finished|wrapped up|done] by the end of the [month|quarter|next few weeks].",
        "Please [drop|leave|post|share] a [note|message|word] of [congratulations|welcome|thanks|good "
        "wishes] in the [team channel|department channel|comments below|shared card].",
        "[An updated|A refreshed|A revised|A new] [organisation chart|team directory|reporting-line "
        "chart|people directory entry] will be published [next week|shortly|soon|in the coming days].",
        "[Existing|Current|Open|Pending] [requests|approvals|projects|tickets] continue as before during "
        "the [transition|changeover|handover|hand-off].",
        "[Introductions|Welcome coffees|Meet-and-greet slots|Short one-to-ones] with [each team|the wider "
        "group|key partners|colleagues] are being [arranged|booked|scheduled|set up] over the "
        "[coming|next|first few|following] weeks.",
        "[Questions|Queries|Concerns] about [who to contact|where requests go|approvals|day-to-day work] "
        "in the meantime can go to the [team inbox|department channel|people team|usual contact] [as "
        "before|for now|until the handover ends|in the meantime].",
        "[Join us|Come along|Everyone is welcome|Please come] [for|to] a [short|small|casual|relaxed] "
        "[farewell|welcome|celebration|get-together] in the [kitchen area|break-out space|usual meeting "
        "room|team area] [later in the month|on Friday afternoon|next week|soon].",
        "[Responsibilities|Areas of work|Portfolios|Duties] [previously|formerly|until now|earlier] "
        "[held|covered|handled|looked after] [by the role|in this position|by the post|in the seat] "
        "[are|will be|have been] [shared|split|divided|redistributed] [across the team|among the wider "
        "group|within the department|between the existing leads] [for now|until further notice|in the "
        "interim|during the search].",
        "[Recruitment|The search|Hiring|A selection process] for the [vacant|open|empty|new] "
        "[role|position|post|seat] [starts|begins|opens|gets under way] [shortly|soon|next month|in the "
        "coming weeks], and [internal|current|existing|in-house] [candidates|colleagues|applicants|staff] "
        "are [welcome|encouraged|invited|free] to [apply|put themselves forward|express interest|ask about "
        "it].",
        "[Current|Existing|Ongoing|Live] [projects|workstreams|commitments|initiatives] "
        "[keep|retain|continue with|stay with] their [owners|leads|sponsors|contacts] [unless|except "
        "where|until|apart from cases where] [told otherwise|a change is announced|the team agrees "
        "otherwise|a handover is arranged].",
    ],
    "news.shoutouts": [
        "A [big|huge|warm|heartfelt] thank you to everyone who [covered|looked after|kept on top "
        "of|staffed] the [support queue|service desk|inbox|phones] during the [holiday weeks|summer "
        "break|year-end rush|busy season].",
        "Congratulations to the colleagues who [completed|passed|earned|finished] their [professional "
        "certifications|accountancy exams|cloud certifications|project management qualifications] this "
        "[month|quarter|season|term].",
        "Thanks to the volunteers who [ran|organised|staffed|baked for] the office [charity bake sale|book "
        "swap|clothing drive|food bank collection], which [raised|collected|brought in|gathered] [more "
        "than expected|a record amount|far more than last year|an impressive total].",
        "Well done to the [interns|apprentices|graduates|summer trainees], whose [demo day|final "
        "presentation day|showcase|project fair] was the [best attended|liveliest|most polished|most "
        "talked-about] [yet|so far|on record|in years].",
        "[Kudos|Hats off|Many thanks|Special thanks] to the [colleagues|volunteers|people|team members] "
        "who [tidied|reorganised|refreshed|rebuilt] the [shared drive|team wiki|onboarding guide|meeting "
        "room kit] [without being asked|in their spare time|over several weeks|with great care].",
        "[A round of applause|Warm praise|Well-earned praise|Recognition] for the [night shift|weekend "
        "crew|migration team|release crew], who [worked|pulled together|stayed calm|kept going] "
        "[through|during|across] a [demanding|long|tricky|busy] [week|cut-over|month-end|launch].",
        "[Congratulations|Best wishes|Warm wishes|Cheers] to [our|the] [newest|recently "
        "promoted|long-serving|returning] colleagues [celebrating|marking|reaching|enjoying] [work "
        "anniversaries|promotions|new roles|milestones] this [month|quarter|season].",
        "[Thanks|Gratitude|A special mention|Big appreciation] to [everyone|the colleagues|all the "
        "people|the volunteers] who [answered|filled in|took part in|shared their views in] the "
        "[engagement survey|pulse survey|office feedback poll|wellbeing questionnaire]; [response "
        "rates|participation|turnout|the return rate] [hit|reached|beat|climbed to] a [new high|record "
        "level|multi-year best|level we have never seen].",
        "[Congratulations|Well done|Bravo|Three cheers] to the [quiz team|football team|running "
        "group|relay team] [for|on] [winning|taking second place in|reaching the final of|finishing] the "
        "[local|regional|charity|inter-company] [league|cup|fun run|challenge] [this month|last weekend|in "
        "style|against tough competition].",
        "[Thank you|Heartfelt thanks|Sincere thanks|A grateful nod] to the "
        "[facilities|office|building|workplace] [team|crew|staff|colleagues] for [keeping|getting|having] "
        "[the heating|the lifts|the kitchens|the meeting rooms] [running|working|usable|in order] "
        "[through|during|despite] the [cold snap|building works|storm|refurbishment].",
    ],
    "news.upcoming": [
        "The next [lunch-and-learn|tech talk|brown-bag session|knowledge-sharing hour] [covers|is "
        "about|focuses on|looks at] [writing clear status updates|running better meetings|giving "
        "feedback|spreadsheet tips|presenting to executives].",
        "[Quarterly|Half-year|Annual|Next quarter's] planning [starts|begins|opens|kicks off] in "
        "[two|three|a few] weeks; please send [topics|ideas|proposals|requests] to the team lead.",
        "The team [offsite|away day|planning day|social] is [booked|set|planned|pencilled in] for the "
        "[last Thursday|first Friday|second Wednesday|middle] of next month.",
        "We are [hiring|growing|recruiting|adding people]: [two|three|several|a couple of] open roles are "
        "[listed|advertised|posted|live] on the [careers page|internal jobs board|vacancies page|hiring "
        "portal].",
        "The [office move|desk reshuffle|floor refurbishment|kitchen renovation] [on the third floor|in "
        "the east wing|on our floor|near the lifts] is [scheduled|planned|booked|expected] for the "
        "[first|second|last] weekend of next month.",
        "[Flu jabs|Health checks|Eye tests|Ergonomic assessments] are [offered|available|bookable|being "
        "run] [on site|in the office|through the wellbeing portal|at the clinic downstairs] [next month|in "
        "the coming weeks|this season|from next week].",
        "A [volunteering day|charity walk|community clean-up|blood donation session] is "
        "[planned|organised|coming up|on the calendar] [later this month|next quarter|in the spring|before "
        "the holidays]; [sign-up|registration|the sign-up sheet|booking] [opens|is open|goes live] "
        "[soon|now|next week].",
        "The [end-of-year|summer|seasonal|quarterly] [celebration|party|team lunch|get-together] "
        "[details|invitations|plans|arrangements] will [follow|arrive|be shared|go out] [shortly|soon|by "
        "email|in the channel].",
        "[Desk booking|Room booking|Parking allocation|Locker assignment] "
        "[moves|switches|changes|migrates] to [a new|an updated|a simpler|a single] "
        "[app|system|form|process] [from next month|after the holidays|in the new quarter|later this "
        "season]; [a short guide|a set of instructions|a how-to|a quick demo] [will follow|comes soon|is "
        "on the way|will be shared].",
        "[Mentoring|Coaching|Shadowing|Job-swap] [pairs|matches|places|applications] for the "
        "[next|coming|spring|autumn] [round|cohort|intake|programme] [close|are due|must be in|end] [at "
        "the end of the month|next Friday|in two weeks|soon]; [first-timers|newcomers|everyone|all levels] "
        "[are welcome|are encouraged|can apply|should consider it].",
        "The [next|upcoming|quarterly|monthly] [town hall|department meeting|open forum|ask-the-leaders "
        "session] [takes place|happens|is held|runs] [in the main auditorium|online and in person|in the "
        "large meeting room|over lunch]; [questions|topics|submissions|suggestions] can be "
        "[sent|posted|submitted|raised] [beforehand|anonymously|in advance|through the form].",
    ],
}
