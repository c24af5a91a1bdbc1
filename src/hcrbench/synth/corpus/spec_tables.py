"""The numbered sections of a system's technical specification (:func:`hcrbench.synth.corpus.render_guides.render_spec`):
tables of its configuration, interfaces, capacity, alerts, backups and change history, each with a short lead.

Every value is drawn from the seed and the system's id, so a system's specification reads the same in every world
of its seed, and none is a world fact (no query asks for them; no entity is named in them).
"""

from __future__ import annotations

import random

from hcrbench.synth.corpus.text import vary
from hcrbench.synth.world_model.seeds import rng

Section = tuple[str, list[str], list[str], list[list[str]]]

#: (parameter, unit, values) of a system's configuration table.
PARAMETERS: list[tuple[str, str, list[object]]] = [
    ("Maximum concurrent sessions", "sessions", [200, 500, 1000, 2000, 5000]),
    ("Session idle timeout", "minutes", [15, 30, 60, 120]),
    ("API rate limit", "calls per minute per client", [60, 120, 600, 1200]),
    ("Connection pool size", "connections per node", [20, 50, 100, 200]),
    ("Application log retention", "days", [30, 90, 180, 365]),
    ("Audit log retention", "days", [365, 730, 2555]),
    ("Backup frequency", "", ["hourly", "every 4 hours", "daily"]),
    ("Maximum upload size", "MB", [10, 25, 50, 100]),
    ("Cache time to live", "seconds", [30, 60, 300, 900]),
    ("Worker threads", "per node", [8, 16, 32, 64]),
    ("Nodes in production", "nodes", [2, 3, 4, 6, 8]),
    ("Hosting regions", "", ["one (EU)", "two (EU, US)", "three (EU, US, APAC)"]),
    ("Database engine", "", ["PostgreSQL 15", "PostgreSQL 16", "MySQL 8.0", "the vendor's managed store"]),
    ("Encryption at rest", "", ["AES-256, platform keys", "AES-256, keys in the central vault"]),
    ("Minimum TLS version", "", ["1.2", "1.3"]),
    ("Single sign-on protocol", "", ["SAML 2.0", "OpenID Connect"]),
    ("Local sign-in outside single sign-on", "", ["disabled", "break-glass accounts only"]),
    ("Maintenance window", "", ["Sunday 02:00-04:00 UTC", "Saturday 22:00-24:00 UTC", "Wednesday 21:00-22:00 UTC"]),
    ("Health check interval", "seconds", [10, 15, 30, 60]),
    ("Upstream call timeout", "seconds", [5, 10, 30, 60]),
    ("Retry attempts", "attempts", [2, 3, 5]),
    ("Queue depth alarm", "messages", [500, 1000, 5000]),
    ("Memory per node", "GB", [8, 16, 32, 64]),
    ("vCPUs per node", "vCPUs", [2, 4, 8, 16]),
    ("Storage allocated", "TB", ["0.5", "1", "2", "5", "10"]),
    ("Recovery point objective", "minutes", [5, 15, 60, 240]),
    ("Recovery time objective", "hours", [1, 2, 4, 8]),
    ("Availability objective", "%", ["99.5", "99.9", "99.95"]),
    ("Data residency", "", ["EU", "EU and US", "per region"]),
    ("Bulk export format", "", ["CSV", "JSON", "Parquet"]),
    ("Notification channels", "", ["e-mail", "chat", "e-mail and chat"]),
    ("Feature flags", "", ["managed in the vendor console", "managed in code"]),
    ("Release method", "", ["blue-green", "rolling", "vendor-managed"]),
    ("Release cadence", "", ["weekly", "fortnightly", "monthly", "vendor's quarterly train"]),
    ("Telemetry agent", "", ["OpenTelemetry collector", "the vendor's agent"]),
    ("Service account key rotation", "days", [30, 60, 90]),
    ("Administrator accounts", "accounts", [2, 3, 4, 5]),
    ("Sandbox environments", "environments", [1, 2, 3]),
    ("Mobile use", "", ["managed browser only", "not supported", "the vendor's app"]),
    ("Time zone of stored times", "", ["UTC"]),
]
_NOTES = ["[Vendor|Product] default", "[Raised|Lowered] after the [spring|summer|autumn] load test",
          "Set by the owning team", "Matches the platform standard", "Under review this half-year",
          "[Do not change without|Change only with] a change ticket", "Checked at the last capacity review",
          "[Same|Identical] in staging", "Lower in the sandbox", "-"]
COMPONENTS = [("Web front end", "serves the user interface"), ("API gateway", "authenticates and routes calls"),
              ("Application service", "holds the business rules"), ("Scheduler", "runs timed and batch jobs"),
              ("Message queue", "buffers work between services"), ("Primary database", "stores live records"),
              ("Read replica", "serves reports and exports"), ("Search index", "answers full-text lookups"),
              ("Object store", "keeps attachments and exports"), ("Cache", "holds hot reads for a few minutes")]
_RUNS_ON = ["containers on the shared cluster", "the vendor's cloud", "virtual machines", "managed service"]
INTERFACES = [("Single sign-on", "inbound", "SAML 2.0"), ("Directory sync", "inbound", "SCIM 2.0"),
              ("REST API", "both", "HTTPS/JSON"), ("Event stream", "outbound", "Kafka"),
              ("Nightly extract", "outbound", "SFTP/CSV"), ("Webhooks", "outbound", "HTTPS"),
              ("Log shipping", "outbound", "syslog over TLS"), ("Metrics", "outbound", "Prometheus"),
              ("Mail relay", "outbound", "SMTP"), ("Admin console", "inbound", "HTTPS")]
CAPACITY = [("Peak concurrent users", "users"), ("Calls per second at peak", "calls/s"),
            ("p95 page load", "ms"), ("p99 API latency", "ms"), ("Nightly batch duration", "min"),
            ("Database size", "GB"), ("Daily log volume", "GB"), ("Queue throughput", "msg/s")]
ALERTS = [("Error rate", "%", (1, 5)), ("p95 latency", "ms", (800, 2000)), ("CPU use", "%", (75, 90)),
          ("Memory use", "%", (80, 92)), ("Disk use", "%", (75, 90)), ("Queue depth", "messages", (500, 5000)),
          ("Failed sign-ins", "per 5 min", (50, 200)), ("Replication lag", "s", (30, 300)),
          ("Certificate expiry", "days left", (30, 7)), ("Batch job overrun", "min", (30, 120))]
_RESPONSE = ["page the on-duty engineer", "post in the team channel", "open a ticket for the owning team",
             "restart the affected node", "fail over to the replica", "scale out one node"]
BACKUPS = [("Database", ["hourly", "every 4 hours", "daily"]), ("Object store", ["daily", "weekly"]),
           ("Configuration", ["on every change", "daily"]), ("Search index", ["rebuilt from source", "daily"]),
           ("Audit logs", ["streamed", "hourly"])]
SECURITY = ["[Every administrator action is|All administrator actions are] [logged|written to the audit log] "
            "and [kept|retained] for the period in the configuration table.",
            "[Service accounts|Machine identities] use [short-lived tokens|rotated keys]; no [shared|generic] "
            "human accounts exist.",
            "[Data in transit|Traffic between components] is encrypted with TLS; [plain HTTP is refused|internal "
            "calls are authenticated too].",
            "[Penetration tests|External security tests] run [yearly|every year] and after [major|large] "
            "[changes|upgrades].",
            "[Vulnerability scans|Dependency scans] run [weekly|nightly]; [critical|high] findings are fixed within "
            "[seven|fourteen] days.",
            "[Production data|Live records] [never reach|are not copied to] the sandbox; it uses [synthetic|masked] "
            "records."]
_CHANGES = ["[Initial|First] version", "Added the interfaces table", "Raised the connection pool after load tests",
            "Moved to the new cluster", "Tightened the alert thresholds", "Documented the recovery drill",
            "Updated the TLS minimum", "Added the search index", "Split the scheduler from the application service",
            "Reviewed all values for the yearly audit", "Added a read replica for reports",
            "Shortened the session idle timeout"]


ENVIRONMENTS = [("Sandbox", "training and trials", "synthetic records", "anyone with the standard role"),
                ("Test", "integration testing", "synthetic records", "engineers and testers"),
                ("Staging", "release rehearsal", "masked copy of live records", "engineers of the owning team"),
                ("Production", "live use", "live records", "owning team and on-duty engineers"),
                ("Disaster recovery", "standby copy of production", "replicated live records",
                 "on-duty engineers during a failover")]
ROLES = [("Viewer", "read records and dashboards", "self-service, no approval"),
         ("Standard user", "create and edit own records", "line manager"),
         ("Power user", "bulk edits and exports", "line manager and the owning team"),
         ("Administrator", "change configuration and roles", "owning team lead"),
         ("Auditor", "read everything, change nothing", "compliance sign-off"),
         ("Integration account", "call the API on behalf of another system", "owning team, reviewed yearly")]
PROCEDURES = {
    "Planned restart": ["Announce the window in the team channel [a day|two days] ahead.",
                        "Drain one node at a time from the load balancer.",
                        "Restart the node and wait for [two|three] green health checks.",
                        "Return the node to the pool and move to the next one.",
                        "Post a short note when every node is back."],
    "Failover to the standby": ["Confirm the primary is really down[, not just slow| with a second check].",
                                "Freeze changes and tell the on-duty lead.",
                                "Promote the standby [database|copy] and repoint the application.",
                                "Run the smoke tests from the runbook repository.",
                                "Record the timings for the post-incident review."],
    "Rotating a credential": ["Create the new secret in the central vault.",
                              "Roll it out to [one|a single] node and check the logs for errors.",
                              "Roll it out to the remaining nodes.",
                              "Revoke the old secret [after a day|once no call uses it]."],
}
RUNBOOK = ["[A spike on every node|A fault on all nodes] usually [points to|means] a shared dependency, [one hot "
           "node|a single noisy node] a local fault.",
           "If the [alert|alarm] clears within ten minutes, [note it in the log|add a line to the log] and take no "
           "further action.",
           "[If it does not clear|If it persists], follow the first response in the table and [tell|update] the "
           "team channel.",
           "[Recent changes|The change log] [are|is] the [first|next] place to look; roll back [the latest "
           "change|a change from the last day] if the timing fits.",
           "[Escalate|Hand over] to the [vendor|supplier] only through the owning team, [with the alert "
           "history attached|quoting the alert history]."]
FIELDS = [("id", "UUID", "yes", "assigned by the system, never reused"),
          ("created_at", "timestamp (UTC)", "yes", "set once, on creation"),
          ("updated_at", "timestamp (UTC)", "yes", "set on every change"),
          ("owner_id", "UUID", "yes", "the account that owns the record"),
          ("status", "enum", "yes", "draft, active, closed or withdrawn"),
          ("title", "text (200)", "yes", "shown in lists and search results"),
          ("description", "text", "no", "plain text; links are allowed"),
          ("tags", "list of text", "no", "free text, lower case, at most 20"),
          ("attachments", "list of object keys", "no", "files live in the object store"),
          ("external_ref", "text (64)", "no", "the key of the same record in another system"),
          ("priority", "enum", "no", "low, normal or high"),
          ("region", "enum", "yes", "where the record is stored"),
          ("version", "integer", "yes", "raised by one on every change"),
          ("deleted_at", "timestamp (UTC)", "no", "soft delete; purged after the retention period"),
          ("visibility", "enum", "yes", "private, team or everyone"),
          ("source", "text (32)", "no", "the channel the record came from"),
          ("approved_by", "UUID", "no", "set when a record needs a second pair of eyes"),
          ("locale", "text (10)", "no", "language and region of the record's text"),
          ("checksum", "text (64)", "no", "SHA-256 of the attachments, for integrity checks"),
          ("retention_class", "enum", "yes", "decides when the record is purged")]
DEPENDENCIES = [("Directory service", "accounts and groups", "sign-in fails; open sessions carry on"),
                ("Central vault", "secrets and keys", "no new releases; running nodes carry on"),
                ("Shared cluster", "compute for the containers", "the service stops; fail over to the standby"),
                ("Mail relay", "notification e-mails", "e-mails queue and go out later"),
                ("Object store", "attachments and exports", "uploads and exports fail; records still open"),
                ("Monitoring platform", "metrics and alerts", "alerts are missed; watch the dashboard by hand"),
                ("DNS", "name resolution", "everything fails; the network team is paged"),
                ("Message broker", "events between services", "events queue locally for up to an hour")]
GLOSSARY = [("RPO", "recovery point objective: the most data, in time, a failure may lose"),
            ("RTO", "recovery time objective: how long a full recovery may take"),
            ("p95 / p99", "the time within which 95% / 99% of responses finish"),
            ("Headroom", "capacity left at the measured peak"), ("Node", "one running copy of a component"),
            ("Break-glass account", "an emergency login kept sealed in the vault"),
            ("Blue-green", "two identical environments, one live, one taking the next release"),
            ("Smoke test", "a quick check that the main paths work after a change"),
            ("Change ticket", "the record a change needs before it reaches production"),
            ("SCIM", "the standard used to sync user accounts from the directory"),
            ("Standby", "a copy kept ready to take over from production"),
            ("Drain", "stop sending new work to a node before it is restarted")]


def _lead(r: random.Random, templates: list[str], sys: str) -> list[str]:
    return [vary(r, t).format(sys=sys) for t in templates]


def spec_sections(seed: int, sys_id: str, sys: str) -> list[Section]:
    """The sections after "Ownership" of system ``sys_id``'s specification: (heading, lead sentences, table
    header, table rows)."""
    r = rng(seed, "spec", sys_id)
    out: list[Section] = []
    comps = r.sample(COMPONENTS, r.randint(5, 9))
    out.append(("Architecture", _lead(r, [
        "{sys} [is built from|runs as] [a handful of|several] components, [listed below|shown in the table]; each "
        "can be [scaled|restarted] on its own.",
        "[All components run|All components are deployed] in [two|three] availability zones, and [no single "
        "node|no one node] holds state that cannot be rebuilt."], sys), ["Component", "Purpose", "Runs on",
                                                                           "Instances"],
        [[c, p, r.choice(_RUNS_ON), str(r.choice([1, 2, 3, 4, 6]))] for c, p in comps]))
    params = r.sample(PARAMETERS, r.randint(18, len(PARAMETERS)))
    rows = []
    for name, unit, values in params:
        v = str(r.choice(values))
        rows.append([name, f"{v} {unit}".strip(), f"{r.choice(values)} {unit}".strip(), vary(r, r.choice(_NOTES))])
    out.append(("Configuration", _lead(r, [
        "The values below are those [in production|of the live environment] [as of this version|today]; the "
        "[staging|test] environment uses the same values unless a note says otherwise.",
        "[Defaults|The vendor's defaults] are shown for comparison; [a change|any change] to a value [needs|goes "
        "through] a change ticket."], sys), ["Parameter", "Value", "Default", "Notes"], rows))
    ifs = r.sample(INTERFACES, r.randint(4, 8))
    out.append(("Interfaces", _lead(r, ["{sys} [exchanges data|talks] with other systems [only|solely] through "
                                        "the interfaces below; [anything else|any other route] is blocked."], sys),
                ["Interface", "Direction", "Protocol", "Authentication"],
                [[n, d, p, r.choice(["mutual TLS", "OAuth client credentials", "API key in the vault", "SSO"])]
                 for n, d, p in ifs]))
    caps = r.sample(CAPACITY, r.randint(5, len(CAPACITY)))
    cap_rows = []
    for name, unit in caps:
        target = r.choice([50, 100, 200, 400, 800, 1500, 3000])
        peak = int(target * r.uniform(0.3, 0.95))
        cap_rows.append([name, f"{target} {unit}", f"{peak} {unit}", f"{round(100 * (1 - peak / target))}%"])
    out.append(("Capacity and performance", _lead(r, [
        "[Figures|Measurements] are from the [last|latest] [quarterly|half-yearly] capacity review; headroom is "
        "the share of the target [left at|unused at] the measured peak."], sys),
        ["Measure", "Target", "Measured peak", "Headroom"], cap_rows))
    alerts = r.sample(ALERTS, r.randint(5, len(ALERTS)))
    out.append(("Monitoring and alerting", _lead(r, [
        "[Alerts|Alarms] go to the owning team's [channel|queue]; a critical alert [pages|wakes] the on-duty "
        "engineer [at any hour|day or night].",
        "[Thresholds|Limits] are reviewed after every [major|serious] incident."], sys),
        ["Alert", "Warning", "Critical", "First response"],
        [[n, f"{lo} {u}", f"{hi} {u}", r.choice(_RESPONSE)] for n, u, (lo, hi) in alerts]))
    out.append(("Backup and recovery", _lead(r, [
        "[Restores|Recovery drills] are [tested|rehearsed] [every quarter|twice a year] on a copy of production; "
        "the last drill met both objectives in the configuration table."], sys),
        ["Item", "Frequency", "Kept for", "Restore tested"],
        [[n, r.choice(f), f"{r.choice([7, 14, 30, 35, 90])} days", r.choice(["quarterly", "twice a year", "yearly"])]
         for n, f in r.sample(BACKUPS, r.randint(3, len(BACKUPS)))]))
    out.append(("Security controls", _lead(r, r.sample(SECURITY, r.randint(4, len(SECURITY))), sys), [], []))
    fields = [FIELDS[0], *sorted(r.sample(FIELDS[1:], r.randint(10, len(FIELDS) - 1)), key=FIELDS.index)]
    out.append(("Data model", _lead(r, [
        "[Every record|Each record] {sys} [keeps|stores] has the fields below; [custom fields|extra fields] are "
        "[not allowed|added only through a change ticket]."], sys), ["Field", "Type", "Required", "Notes"],
        [list(f) for f in fields]))
    out.append(("Dependencies", _lead(r, [
        "{sys} [relies on|depends on] the [services|platform services] below; the last column says what users "
        "[see|notice] when one [fails|is down]."], sys), ["Dependency", "Provides", "If it fails"],
        [list(x) for x in r.sample(DEPENDENCIES, r.randint(4, len(DEPENDENCIES)))]))
    envs = r.sample(ENVIRONMENTS, r.randint(3, 5))
    out.append(("Environments", _lead(r, ["{sys} runs in [the environments below|these environments]; "
                                         "[releases|changes] move through them from top to bottom, and the "
                                         "standby, where there is one, follows production."], sys),
                ["Environment", "Purpose", "Data", "Who has access"],
                [list(e) for e in ENVIRONMENTS if e in envs]))
    out.append(("Roles and permissions", _lead(r, ["[Roles|Permissions] are [granted|assigned] through the "
                                                  "self-service catalogue and [reviewed|checked] every quarter."],
                                               sys), ["Role", "Can", "Granted by"],
                [list(x) for x in r.sample(ROLES, r.randint(4, len(ROLES)))]))
    for name in r.sample(list(PROCEDURES), r.randint(2, 3)):
        steps = [f"{k}. {vary(r, x)}" for k, x in enumerate(PROCEDURES[name], start=1)]
        out.append((f"Procedure: {name.lower()}", steps, [], []))
    # each runbook opens on its own alert and adds one general step no other runbook of the page repeats
    general = r.sample(RUNBOOK, len(RUNBOOK))
    for n, u, (lo, hi) in alerts[: r.randint(3, len(RUNBOOK))]:
        first = vary(r, "[When|Once] {n} [passes|goes above] {lo} {u}, [check|look at] the [dashboard|service "
                        "overview] [first|before anything else]; at {hi} {u} the on-duty engineer is paged.")
        out.append((f"Runbook: {n.lower()} above {lo} {u}", [first.format(n=n.lower(), lo=lo, hi=hi, u=u),
                                                              vary(r, general.pop())], [], []))
    out.append(("Glossary", [], ["Term", "Meaning"], [list(x) for x in r.sample(GLOSSARY, r.randint(6, 12))]))
    hist = [_CHANGES[0], *r.sample(_CHANGES[1:], r.randint(3, 7))]
    out.append(("Change history", [], ["Version", "Change"],
                [[f"{k // 3 + 1}.{k % 3}", vary(r, c)] for k, c in enumerate(hist)]))
    return out


__all__ = ["spec_sections"]
