import SimKernel
import SimModel

/// Every scenario key with a single value, declared once (`ParameterDefinition`): the four
/// sections of the world and the keys of a `devices[]` entry. The order is the schema's, which
/// is the order `resolved.json` writes defaults in.
public enum ParameterTable {
  /// The sections and their nested objects.
  public static let worldGroups: [ParameterGroup] = [
    ParameterGroup("cloud", meaning: "the CloudKit server"),
    ParameterGroup(
      "cloud.throttle", meaning: "a per-container throttle; off by default", required: ["requestsPerSecond"]),
    ParameterGroup("push", meaning: "silent pushes through APNs"),
    ParameterGroup("polling", meaning: "public-database polling"),
    ParameterGroup("scheduler", meaning: "the system scheduler, dasd"),
  ]

  /// The nested objects of a device.
  public static let deviceGroups: [ParameterGroup] = [
    ParameterGroup(
      "power", meaning: "battery level, charger and Low Power Mode at the start (change them with timeline actions)"),
    ParameterGroup("network", meaning: "connectivity, latency and bandwidth of the device"),
    ParameterGroup("syncEngine", meaning: "how a CKSyncEngine app sends and fetches (with \"client\": \"syncEngine\")"),
  ]

  public typealias World = ParameterDefinition<WorldSpec>
  public typealias Device = ParameterDefinition<DeviceSpec>

  /// The keys of `cloud`, `push`, `polling` and `scheduler` (its `policies` come from the
  /// policy registry).
  public static let world: [World] = cloud + push + polling + scheduler

  static let cloud: [World] = ownCloud + RequestFaults.knobs.map(definition(of:))

  /// A key a request fault declares for itself (`FaultKnob`), under `cloud`.
  static func definition(of knob: FaultKnob) -> World {
    let swarm = knob.swarm.map { World.SwarmRange(probability: $0.probability, lower: $0.lower, upper: $0.upper) }
    switch knob.kind {
    case .probability:
      return World(
        "cloud." + knob.name, .ratio(belowOne: true), unit: "ratio", default: .number(0), source: knob.source,
        meaning: knob.meaning, needs: knob.needs.map { "cloud." + $0 }, swarm: swarm,
        apply: { $0.server.faultKnobs.set(knob, probability: $1.number) },
        read: { .number($0.server.faultKnobs.probability(knob)) })
    case .distribution(_, let text):
      return World(
        "cloud." + knob.name, .distribution, unit: "s", default: .distribution(text), source: knob.source,
        meaning: knob.meaning, needs: knob.needs.map { "cloud." + $0 }, swarm: swarm,
        apply: { $0.server.faultKnobs.set(knob, distribution: $1.distribution) },
        read: { .distribution($0.server.faultKnobs.distribution(knob)) })
    }
  }

  /// The `cloud` keys of the model's own parameters.
  static let ownCloud: [World] = [
    World(
      "cloud.requestLatency", .distribution, unit: "s",
      default: .distribution(#"{"lognormal": {"median": "150ms", "p99": "2s"}}"#), source: "[assumed]",
      meaning: "time one CloudKit request takes besides transfer (round trip)",
      apply: { $0.server.requestLatency = $1.distribution }, read: { .distribution($0.server.requestLatency) }),
    World(
      "cloud.recordsPerOperation", .integer(min: 1, max: 100_000), unit: "records", default: .integer(400),
      source: "[A] limitExceeded doc; [RE] PFCloudKitExporterOptions", meaning: "records per modify request",
      apply: { $0.server.recordsPerOperation = $1.integer }, read: { .integer($0.server.recordsPerOperation) }),
    World(
      "cloud.bytesPerOperation", .integer(min: 1, max: 1 << 40), unit: "bytes", default: .integer(1_572_864),
      source: "[RE] OpenCloudData exporter (1.5 MiB)", meaning: "record bytes per modify request, assets excluded",
      apply: { $0.server.bytesPerOperation = $1.integer }, read: { .integer($0.server.bytesPerOperation) }),
    World(
      "cloud.savePolicy", .choice(ServerSavePolicy.allCases.map(\.rawValue)), default: .choice("changedKeys"),
      source: "[W] WWDC19 \"last writer wins\"; [RE] changedKeys",
      meaning:
        "how the server saves an arriving record: its changed fields win (changedKeys), all its fields (allKeys), "
        + "or a record changed since the device saw it answers serverRecordChanged and is merged and retried "
        + "(ifServerRecordUnchanged)",
      apply: { $0.server.savePolicy = ServerSavePolicy(rawValue: $1.word) ?? .changedKeys },
      read: { .choice($0.server.savePolicy.rawValue) }),
    World(
      "cloud.importPageSize", .integer(min: 1, max: 100_000), unit: "records", default: .integer(200),
      source: "[C] ~200", meaning: "records per page of a fetch-changes response",
      apply: { $0.server.importPageSize = $1.integer }, read: { .integer($0.server.importPageSize) }),
    World(
      "cloud.applyTimePerRecord", .duration(positive: false), unit: "s", default: .duration("2.2ms"),
      source: "[C] fitted to a measured first import (eczema-helper #713) and Apple's 83 min per million records "
        + "(WWDC22 Core Data lounge)",
      meaning: "time to apply one imported record into a store whose zone holds 4,096 records",
      apply: { $0.server.applyTimePerRecord = $1.duration },
      read: { .duration($0.server.applyTimePerRecord) }),
    World(
      "cloud.applyTimeScalesWithZone", .bool, default: .bool(true), source: "[C] the fit above",
      meaning: "the apply time grows with log2 of the zone's record count (an index lookup per record); false keeps "
        + "it constant",
      apply: { $0.server.applyTimeScalesWithZone = $1.bool }, read: { .bool($0.server.applyTimeScalesWithZone) }),
    World(
      "cloud.setupTime", .duration(positive: false), unit: "s", default: .duration("800ms"),
      source: "[C] a first import began 1.2 s after launch (eczema-helper #713)",
      meaning: "the container's setup on a store's first use (zone and subscription), before its first import",
      apply: { $0.server.setupTime = $1.duration }, read: { .duration($0.server.setupTime) }
    ),
    World(
      "cloud.initialImportTime", .duration(positive: false), unit: "s", default: .duration("1.3s"),
      source: "[C] fitted to 1.7 s for 100 rows (eczema-helper #713)",
      meaning: "fixed cost of an import from an empty token (a first import, or one after a reset), added to its first "
        + "page",
      apply: { $0.server.initialImportTime = $1.duration },
      read: { .duration($0.server.initialImportTime) }),
    World(
      "cloud.recordOverheadBytes", .integer(min: 0, max: 1 << 30), unit: "bytes", default: .integer(300),
      source: "[assumed]", meaning: "a record's bytes beside its fields (name, system fields)",
      apply: { $0.server.recordOverheadBytes = $1.integer }, read: { .integer($0.server.recordOverheadBytes) }),
    World(
      "cloud.joinRecordBytes", .integer(min: 0, max: 1 << 30), unit: "bytes", default: .integer(400),
      source: "[assumed]", meaning: "size of a many-to-many join record (CDMR)",
      apply: { $0.server.joinRecordBytes = $1.integer }, read: { .integer($0.server.joinRecordBytes) }),
    World(
      "cloud.assetBytesPerOperation", .integer(min: 1, max: 1 << 50), unit: "bytes", default: .absent("none"),
      source: "[RE] OpenCloudData export context: Core Data cuts batches at 400 items and 1.5 MiB of CKRecord.size, "
        + "assets excluded; [A] limitExceeded: 2 MB per request \"not counting asset sizes\"",
      meaning: "asset bytes per modify request: without it (Core Data's exporter) assets never cut a batch, so one "
        + "request may carry hundreds of megabytes; with it batches are cut there too (a record never splits)",
      apply: { $0.server.assetBytesPerOperation = $1.integer },
      read: { $0.server.assetBytesPerOperation.map { .integer($0) } }),
    World(
      "cloud.assetThresholdBytes", .integer(min: 1, max: 1 << 40), unit: "bytes", default: .integer(750_000),
      source: "[W] WWDC19 ~750 KB", meaning: "string and binary fields above this become CKAsset uploads",
      apply: { $0.server.assetThresholdBytes = $1.integer }, read: { .integer($0.server.assetThresholdBytes) }),
    World(
      "cloud.serverMaxRecordsPerRequest", .integer(min: 1, max: 100_000), unit: "records", default: .integer(400),
      source: "[A] limitExceeded",
      meaning: "the server's limit: a larger request fails with limitExceeded and is "
        + "split in half",
      apply: { $0.server.serverMaxRecordsPerRequest = $1.integer },
      read: { .integer($0.server.serverMaxRecordsPerRequest) }),
    World(
      "cloud.serverMaxBytesPerRequest", .integer(min: 1, max: 1 << 40), unit: "bytes", default: .integer(2_000_000),
      source: "[A] limitExceeded, 2 MB", meaning: "the server's limit on a request's record bytes",
      apply: { $0.server.serverMaxBytesPerRequest = $1.integer }, read: { .integer($0.server.serverMaxBytesPerRequest) }
    ),
    World(
      "cloud.throttle.requestsPerSecond", .number(above: 0), unit: "requests/s", default: .absent("required"),
      source: "[A] TN3162; value [assumed]",
      meaning: "container requests per second above which the server answers serviceUnavailable",
      apply: { $0.server.throttleRequestsPerSecond = $1.number },
      read: { $0.server.throttleRequestsPerSecond.map { .number($0) } }),
    World(
      "cloud.throttle.retryAfter", .distribution, unit: "s",
      default: .distribution(#"{"lognormal": {"median": "37s", "p99": "113s"}}"#),
      source: "[A][C] fitted to the published framework values 20.5 s (forums 770908), 30 s (TN3162), 51.6 s "
        + "(TN3162) and 57.7 s (WWDC23 Q&A); TN3162's Web Services example (30.6 h) is another API's",
      meaning: "the retry-after the server states when throttling",
      range: .scale(0.55, 1.56, "the published values' spread: 20.5 s to 57.7 s around the median 37 s"),
      apply: { $0.server.throttleRetryAfter = $1.distribution }, read: { .distribution($0.server.throttleRetryAfter) }
    ),
    World(
      "cloud.throttle.retryAfterHolds", .choice(["device", "container"]), default: .choice("device"),
      source: "[A] CKError.h, TN3162 (device); spec §11.9 read literally (container)",
      meaning: "whom a serviceUnavailable retry-after holds back: the device answered, or every device",
      range: .choices(["device", "container"], "two sourced readings"),
      apply: { $0.server.retryAfterHoldsContainer = $1.word == "container" },
      read: { .choice($0.server.retryAfterHoldsContainer ? "container" : "device") }),
    World(
      "cloud.throttleBackoffCap", .duration(positive: true), unit: "s", default: .absent("none"),
      source: "[A] CKError, TN3162: wait the retry-after (none, the default); [C] Mindwtr #948, TablePro #2975 "
        + "(doubling)",
      meaning: "the client's own back-off on repeated throttles: each consecutive serviceUnavailable or "
        + "requestRateLimited answer doubles the wait from its retry-after, up to this; without it the client "
        + "waits exactly the retry-after",
      apply: { $0.server.throttleBackoffCap = $1.duration },
      read: { $0.server.throttleBackoffCap.map { .duration($0) } }),
    World(
      "cloud.networkFailureProbability", .ratio(belowOne: true), unit: "ratio", default: .number(0),
      source: "[assumed]", meaning: "probability that a request fails with networkFailure while online",
      swarm: .init(probability: 0.3, lower: 0.01, upper: 0.2),
      apply: { $0.server.networkFailureProbability = $1.number },
      read: { .number($0.server.networkFailureProbability) }),
    World(
      "cloud.networkRetryBackoff", .duration(positive: false), unit: "s", default: .duration("1s"),
      source: "[A] CKError.h \"retry immediately, then back off\"; value [assumed]",
      meaning: "the delay after the first immediate retry of a network failure, doubling per attempt",
      needs: "cloud.networkFailureProbability",
      apply: { $0.server.networkRetryBackoff = $1.duration },
      read: { .duration($0.server.networkRetryBackoff) }),
    World(
      "cloud.networkRetryBackoffCap", .duration(positive: false), unit: "s", default: .duration("5m"),
      source: "[assumed]", meaning: "the longest network-failure delay: the doubling stops here",
      needs: "cloud.networkFailureProbability",
      apply: { $0.server.networkRetryBackoffCap = $1.duration },
      read: { .duration($0.server.networkRetryBackoffCap) }),
    World(
      "cloud.quotaBytesPerAccount", .integer(min: 0, max: Int.max / 2), unit: "bytes", default: .absent("unlimited"),
      source: "[A] quotaExceeded", meaning: "each account's iCloud storage",
      apply: { $0.server.quotaBytesPerAccount = Int64($1.integer) },
      read: { $0.server.quotaBytesPerAccount.map { .integer(Int($0)) } }),
    World(
      "cloud.poisonRecordProbability", .ratio(belowOne: false), unit: "ratio", default: .number(0),
      source: "[assumed]", meaning: "probability that a new record is one the server always refuses",
      apply: { $0.server.poisonRecordProbability = $1.number }, read: { .number($0.server.poisonRecordProbability) }),
    World(
      "cloud.changeTokenRetention", .duration(positive: true), unit: "s", default: .absent("forever"),
      source: "[assumed] (Apple publishes none)",
      meaning: "how long the server keeps the change history a token refers to (an older token expires: a reset)",
      swarm: .init(probability: 0.2, lower: 600, upper: 3540, whole: true),
      apply: { $0.server.changeTokenRetention = $1.duration },
      read: { $0.server.changeTokenRetention.map { .duration($0) } }),
    World(
      "cloud.deviceThrottleRequestsPerMinute", .number(above: 0), unit: "requests/min", default: .absent("none"),
      source: "[A] TN3162; value [assumed]",
      meaning: "a device's requests per minute above which it gets requestRateLimited",
      apply: { $0.server.deviceThrottleRequestsPerMinute = $1.number },
      read: { $0.server.deviceThrottleRequestsPerMinute.map { .number($0) } }),
    World(
      "cloud.deviceThrottleRetryAfter", .distribution, unit: "s",
      default: .distribution(#"{"lognormal": {"median": "37s", "p99": "113s"}}"#),
      source: "[A][C] as cloud.throttle.retryAfter: the published values do not tell the errors apart",
      meaning: "the retry-after of a requestRateLimited answer", needs: "cloud.deviceThrottleRequestsPerMinute",
      apply: { $0.server.deviceThrottleRetryAfter = $1.distribution },
      read: { .distribution($0.server.deviceThrottleRetryAfter) }),
    World(
      "cloud.setupFailureProbability", .ratio(belowOne: true), unit: "ratio", default: .number(0), source: "[assumed]",
      meaning: "probability that a store's container setup fails with serviceUnavailable (the CloudKit daemon) and "
        + "is tried again after setupRetryAfter",
      apply: { $0.server.setupFailureProbability = $1.number }, read: { .number($0.server.setupFailureProbability) }),
    World(
      "cloud.setupRetryAfter", .distribution, unit: "s", default: .distribution(#""5s""#),
      source: "[C] a logged \"Error connecting to CloudKit daemon … Retry after 5.0 seconds\" during setup",
      meaning: "the retry-after of a failed setup", needs: "cloud.setupFailureProbability",
      apply: { $0.server.setupRetryAfter = $1.distribution }, read: { .distribution($0.server.setupRetryAfter) }),
    World(
      "cloud.zoneBusyProbability", .ratio(belowOne: true), unit: "ratio", default: .number(0), source: "[assumed]",
      meaning: "probability that a request answers zoneBusy",
      swarm: .init(probability: 0.3, lower: 0.01, upper: 0.2),
      apply: { $0.server.zoneBusyProbability = $1.number }, read: { .number($0.server.zoneBusyProbability) }),
    World(
      "cloud.zoneBusyBackoff", .duration(positive: true), unit: "s", default: .duration("2s"),
      source: "[A] CKError.h \"a few seconds\"", meaning: "the first zoneBusy delay, doubling per attempt",
      needs: "cloud.zoneBusyProbability",
      apply: { $0.server.zoneBusyBackoff = $1.duration },
      read: { .duration($0.server.zoneBusyBackoff) }),
    World(
      "cloud.zoneBusyBackoffCap", .duration(positive: true), unit: "s", default: .duration("5m"),
      source: "[assumed] as networkRetryBackoffCap", meaning: "the longest zoneBusy delay: the doubling stops here",
      needs: "cloud.zoneBusyProbability",
      apply: { $0.server.zoneBusyBackoffCap = $1.duration },
      read: { .duration($0.server.zoneBusyBackoffCap) }),
  ]

  static let push: [World] = [
    World(
      "push.fanoutLatency", .distribution, unit: "s",
      default: .distribution(#"{"lognormal": {"median": "2s", "p99": "60s"}}"#),
      source: "[assumed] (Apple: \"within about a minute\" end to end)", meaning: "from the server's commit to apsd",
      apply: { $0.push.fanoutLatency = $1.distribution }, read: { .distribution($0.push.fanoutLatency) }),
    World(
      "push.deliveryLatency", .duration(positive: false), unit: "s", default: .duration("100ms"),
      source: "[A] TN3163 example", meaning: "from apsd to the app",
      apply: { $0.push.deliveryLatency = $1.duration },
      read: { .duration($0.push.deliveryLatency) }),
    World(
      "push.dropProbability", .ratio(belowOne: false), unit: "ratio", default: .number(0), source: "[assumed]",
      meaning: "probability that APNs drops a push", swarm: .init(probability: 0.3, lower: 0.1, upper: 1),
      range: .numbers(0, 0.05, "assumed: none to one push in twenty (APNs is best-effort)"),
      apply: { $0.push.dropProbability = $1.number }, read: { .number($0.push.dropProbability) }),
    World(
      "push.backgroundBudgetPerHour", .integer(min: 0, max: 1_000_000), unit: "wakes/h", default: .integer(3),
      source: "[A] \"two or three per hour\"", meaning: "background pushes per hour that wake the app; more are held",
      range: .numbers(2, 3, "Apple's \"two or three per hour\""),
      apply: { $0.push.backgroundBudgetPerHour = $1.integer },
      read: { .integer($0.push.backgroundBudgetPerHour) }),
    World(
      "push.backgroundBudgetPerDay", .integer(min: 0, max: 1_000_000), unit: "wakes/day", default: .absent("none"),
      source: "[C] Apple developer forums 776933: budgets \"reset every 24 hours\"; no number published",
      meaning: "background pushes per day that wake apps, device-wide (shared with other apps; resets every 24 h "
        + "of the run)",
      apply: { $0.push.backgroundBudgetPerDay = $1.integer },
      read: { $0.push.backgroundBudgetPerDay.map { .integer($0) } }),
    World(
      "push.deferBelowBatteryPercent", .number(min: 0, max: 100), unit: "%", default: .absent("none"),
      source: "[W] WWDC20 10063: battery level is among what a background push's delivery depends on; the level "
        + "[assumed]",
      meaning: "below this battery level a background push to an app not in front is deferred (the newest kept) "
        + "until the level is back above it, as in Low Power Mode; without it the push is delivered and only its "
        + "import waits under criticalBattery",
      apply: { $0.push.deferBelowBatteryPercent = $1.number },
      read: { $0.push.deferBelowBatteryPercent.map { .number($0) } }),
    World(
      "push.deliveryRequiresLaunchWithin", .duration(positive: true), unit: "s", default: .duration("7d"),
      source: "[C] forums 776933: \"not delivered to the app at all if the user has not launched the app for a "
        + "while\"; the while [assumed]",
      meaning: "an app not opened by the person for longer than this gets no background push (the start counts as "
        + "an opening)",
      apply: { $0.push.deliveryRequiresLaunchWithin = $1.duration },
      read: { .duration($0.push.deliveryRequiresLaunchWithin) }),
    World(
      "push.coalescingWindow", .duration(positive: false), unit: "s", default: .duration("0"), source: "[assumed]",
      meaning: "pushes to one device within this window coalesce into one (0 = off)",
      range: .numbers(0, 10, "assumed: off to ten seconds"),
      apply: { $0.push.coalescingWindow = $1.duration },
      read: { .duration($0.push.coalescingWindow) }),
    World(
      "push.offlineStorage", .duration(positive: false), unit: "s", default: .duration("30d"),
      source: "[A] APNs stores one notification per app", meaning: "how long APNs stores a push for an offline device",
      apply: { $0.push.offlineStorage = $1.duration },
      read: { .duration($0.push.offlineStorage) }),
  ]

  static let polling: [World] = [
    World(
      "polling.interval",
      .duration(
        positive: true, atLeast: .seconds(1),
        why: "a poll is a request to the server; documented intervals are 30 minutes to a day [A TN3164]"),
      unit: "s", default: .duration("30m"), source: "[A] TN3164: 30 min in development, up to 24 h in production",
      meaning: "time between a public-database store's polls (`environment: production` makes it 24 h)",
      apply: { $0.polling.interval = $1.duration },
      read: { .duration($0.polling.interval) }),
    World(
      "polling.clock", .choice(["appUse", "wallClock"]), default: .choice("appUse"),
      source: "[W] WWDC20 \"after about every 30 minutes of application use\"; [A] technotes allow wall clock",
      meaning:
        "what the interval counts: time the app is in use, or wall-clock time, since the store's last fetch "
        + "(only a fetch starts it again: a launch or activation that does not fetch under `fetchOn` leaves it "
        + "running; a wall-clock poll that fell due while the app was not running comes at its next launch)",
      apply: { $0.polling.appUseClock = $1.word == "appUse" },
      read: { .choice($0.polling.appUseClock ? "appUse" : "wallClock") }),
    World(
      "polling.fetchOn", .choice(PublicFetchRule.allCases.map(\.rawValue)), default: .choice("activation"),
      source: "[W] WWDC20 \"on launch or about every 30 minutes of use\" (launch); activation, the default, stands "
        + "for launches after iOS terminates a suspended app, which the model does not simulate [assumed]",
      meaning: "when a public-database store fetches besides its polls: at launch, at every activation, or on "
        + "polls only (interval)",
      apply: { $0.polling.fetchOn = PublicFetchRule(rawValue: $1.word) ?? .activation },
      read: { .choice($0.polling.fetchOn.rawValue) }),
  ]

  static let scheduler: [World] = [
    World(
      "scheduler.decisionLatency", .distribution, unit: "s",
      default: .distribution(#"{"lognormal": {"median": "300ms", "p99": "600ms"}}"#),
      source: "[A] TN3163 example 0.38 s", meaning: "from an activity's submission to dasd's decision",
      apply: { $0.scheduler.decisionLatency = $1.distribution }, read: { .distribution($0.scheduler.decisionLatency) }),
    World(
      "scheduler.reevaluationLatency", .duration(positive: false), unit: "s", default: .duration("89ms"),
      source: "[A] TN3163: the group block cleared 89 ms after the export ended",
      meaning: "from a signal (an activity finishing, power or network changing) to the new decision",
      apply: { $0.scheduler.reevaluationLatency = $1.duration },
      read: { .duration($0.scheduler.reevaluationLatency) }),
    World(
      "scheduler.exportStartDelay", .duration(positive: false), unit: "s", default: .duration("1s"),
      source: "[A] TN3163", meaning: "from approval to the start of an export",
      apply: { $0.scheduler.exportStartDelay = $1.duration },
      read: { .duration($0.scheduler.exportStartDelay) }),
    World(
      "scheduler.importStartDelay", .duration(positive: false), unit: "s", default: .duration("95ms"),
      source: "[A] TN3163", meaning: "from approval to the start of an import",
      apply: { $0.scheduler.importStartDelay = $1.duration },
      read: { .duration($0.scheduler.importStartDelay) }),
    World(
      "scheduler.emptyExportDuration", .duration(positive: false), unit: "s", default: .duration("35ms"),
      source: "[A] TN3163", meaning: "how long an export with nothing to export takes",
      apply: { $0.scheduler.emptyExportDuration = $1.duration },
      read: { .duration($0.scheduler.emptyExportDuration) }),
    World(
      "scheduler.policyValidity",
      .duration(
        positive: true, atLeast: .seconds(1),
        why: "a blocked activity is re-checked once per validity; the default is 900s [RE], and below a second "
          + "re-checks only spin"),
      unit: "s", default: .duration("900s"), source: "[RE] 900 s (0x384)",
      meaning: "at the latest, a waiting activity is re-evaluated after this long",
      apply: { $0.scheduler.policyValidity = $1.duration },
      read: { .duration($0.scheduler.policyValidity) }),
    World(
      "scheduler.exportRequestCoalescing", .bool, default: .bool(true), source: "[A] TN3163 error 134417",
      meaning: "an export asked for while one is pending joins it",
      apply: { $0.exportRequestCoalescing = $1.bool }, read: { .bool($0.exportRequestCoalescing) }),
  ]

  /// The single-valued keys of a `devices[]` entry, in the schema's order; `name`, `count`,
  /// `account`, `stores`, `savePolicy`, `uiRefresh` and `modelVersion` are read by hand.
  public static let device: [Device] = [
    Device(
      "appState", .choice(AppState.allCases.map(\.rawValue)), default: .choice("foreground"), source: "",
      meaning: "the app's state at the start",
      apply: { $0.initialAppState = AppState(rawValue: $1.word) ?? .foreground },
      read: { .choice($0.initialAppState.rawValue) }),
    Device(
      "backgroundPush", .bool, default: .bool(true), source: "[A] required for push",
      meaning: "the Remote notifications background mode", apply: { $0.app.backgroundPush = $1.bool },
      read: { .bool($0.app.backgroundPush) }),
    Device(
      "power.battery", .number(min: 0, max: 100), unit: "%", default: .number(80), source: "[assumed]",
      meaning: "battery level", range: .numbers(30, 100, "assumed: a day's charge above the 20 % rules"), apply: { $0.conditions.batteryPercent = $1.number },
      read: { .number($0.conditions.batteryPercent) }),
    Device(
      "power.pluggedIn", .bool, default: .bool(false), source: "", meaning: "on the charger",
      apply: { $0.conditions.pluggedIn = $1.bool }, read: { .bool($0.conditions.pluggedIn) }),
    Device(
      "power.lowPowerMode", .bool, default: .bool(false), source: "", meaning: "Low Power Mode on",
      apply: { $0.conditions.lowPowerMode = $1.bool }, read: { .bool($0.conditions.lowPowerMode) }),
    Device(
      "power.drainPerHour", .number(min: 0, max: 100), unit: "%/h", default: .number(0), source: "[assumed]",
      meaning: "battery drain while unplugged (0: the level changes only by timeline)",
      apply: { $0.conditions.drainPercentPerHour = $1.number }, read: { .number($0.conditions.drainPercentPerHour) }),
    Device(
      "power.chargePerHour", .number(min: 0, max: 1000), unit: "%/h", default: .number(0), source: "[assumed]",
      meaning: "charging while plugged in, credited in 5-minute steps at each step's start; at 0 a plug does not charge "
        + "(it still lifts Low Power Mode's throttle)", apply: { $0.conditions.chargePercentPerHour = $1.number },
      read: { .number($0.conditions.chargePercentPerHour) }),
    Device(
      "power.autoLowPowerBelow", .number(min: 0, max: 100), unit: "%", default: .absent("never"),
      source: "iOS offers it at 20 %", meaning: "Low Power Mode turns on by itself below this battery level",
      apply: { $0.conditions.autoLowPowerBelowPercent = $1.number },
      read: { $0.conditions.autoLowPowerBelowPercent.map { .number($0) } }),
    Device(
      "otherAppsBackgroundPushesPerHour", .number(min: 0, max: 3600), unit: "pushes/h", default: .number(0),
      source: "[C] forums 776933: the budget is \"across all apps on a device\"; [A] APNs stores and defers every "
        + "app's pushes alike; load [assumed]",
      meaning: "background pushes other apps of the device receive, evenly: stored while offline and deferred "
        + "while saving power as this app's are, they use the device-wide budget when delivered",
      range: .numbers(0, 6, "assumed: none to two apps' budgets"),
      apply: { $0.conditions.otherAppsBackgroundPushesPerHour = $1.number },
      read: { .number($0.conditions.otherAppsBackgroundPushesPerHour) }),
    Device(
      "debuggerAttached", .bool, default: .bool(false),
      source: "[C] forums 776933: \"the throttle is disabled if you run your app with a debugger attached\"",
      meaning: "run from Xcode with a debugger: the push budget does not apply",
      apply: { $0.conditions.debuggerAttached = $1.bool }, read: { .bool($0.conditions.debuggerAttached) }),
    Device(
      "network.online", .bool, default: .bool(true), source: "", meaning: "connected at the start",
      apply: { $0.conditions.online = $1.bool }, read: { .bool($0.conditions.online) }),
    Device(
      "network.latency", .distribution, unit: "s", default: .absent("cloud.requestLatency"), source: "",
      meaning: "this device's request round trip", apply: { $0.requestLatency = $1.distribution },
      read: { $0.requestLatency.map { .distribution($0) } }),
    Device(
      "network.uploadBytesPerSecond", .number(above: 0), unit: "bytes/s", default: .number(16_700_000),
      source: "[A] Apple's 10 GB test, exported then imported, takes about 20 minutes (WWDC22 Core Data lounge); the "
        + "equal upload/download split is [assumed]",
      meaning: "upload bandwidth",
      range: .numbers(8_350_000, 33_400_000, "the measured rate split evenly, to all of it one way or half"), apply: { $0.conditions.uploadBytesPerSecond = $1.number },
      read: { .number($0.conditions.uploadBytesPerSecond) }),
    Device(
      "network.downloadBytesPerSecond", .number(above: 0), unit: "bytes/s", default: .number(16_700_000),
      source: "[A] as upload (split [assumed])", meaning: "download bandwidth",
      range: .numbers(8_350_000, 33_400_000, "as upload"),
      apply: { $0.conditions.downloadBytesPerSecond = $1.number },
      read: { .number($0.conditions.downloadBytesPerSecond) }),
    Device(
      "visibilityRequiresForeground", .bool, default: .bool(true), source: "[assumed]",
      meaning: "a person sees changes only while the app is in front",
      apply: { $0.app.visibilityRequiresForeground = $1.bool }, read: { .bool($0.app.visibilityRequiresForeground) }),
    Device(
      "uiMergeDelay", .duration(positive: false), unit: "s", default: .duration("50ms"), source: "[assumed]",
      meaning: "from an import's store update to the view context's merge",
      apply: { $0.app.uiMergeDelay = $1.duration }, read: { .duration($0.app.uiMergeDelay) }),
    Device(
      "resetGuard", .bool, default: .bool(false), source: "[HowTo] isResettingSync",
      meaning: "saves wait while a reset runs; off, they are lost", apply: { $0.app.resetGuard = $1.bool },
      read: { .bool($0.app.resetGuard) }),
    Device(
      "deduplicate", .bool, default: .bool(false), source: "[A] [CDModel], [Rules]",
      meaning: "after each import, delete duplicates by logical key, lowest id wins",
      apply: { $0.app.deduplicate = $1.bool }, read: { .bool($0.app.deduplicate) }),
    Device(
      "suspendsInBackground", .bool, default: .bool(true),
      source: "[A] \"Extending your app's background execution time\"",
      meaning: "the app is suspended in the background (iOS); false for an app that keeps running there (a Mac app)",
      apply: { $0.app.suspendsInBackground = $1.bool }, read: { .bool($0.app.suspendsInBackground) }),
    Device(
      "backgroundGrace", .duration(positive: false), unit: "s", default: .duration("5s"),
      source: "[A] applicationDidEnterBackground's five seconds; WWDC22 CloudKit lounge",
      meaning: "from leaving the foreground to suspension",
      apply: { $0.app.backgroundGrace = $1.duration },
      read: { .duration($0.app.backgroundGrace) }),
    Device(
      "exportBackgroundTask", .duration(positive: false), unit: "s", default: .duration("30s"),
      source: "[A] Core Data creates a background task for export; Apple DTS: 30 s since iOS 13 (forums 85066)",
      meaning: "an export in progress on leaving the foreground runs under a background task for at most this long",
      apply: { $0.app.exportBackgroundTask = $1.duration },
      read: { .duration($0.app.exportBackgroundTask) }),
    Device(
      "pushRuntime", .distribution, unit: "s",
      default: .distribution(#"{"lognormal": {"median": "3.5s", "p99": "6.7s"}}"#),
      source: "[C] fitted to field telemetry: most push launches expired 2–5 s after launch (Apple developer "
        + "forums 780956)",
      meaning: "how long a push keeps a suspended or not-running app running in the background, drawn per launch",
      range: .scale(0.57, 1.43, "the telemetry's spread: 2–5 s around 3.5 s"),
      apply: { $0.app.pushRuntime = $1.distribution }, read: { .distribution($0.app.pushRuntime) }),
    Device(
      "pushRuntimeLimit", .duration(positive: true), unit: "s", default: .duration("30s"),
      source: "[A] \"Pushing background updates to your App\": up to 30 s",
      meaning: "the most a push launch runs: pushRuntime's draws stop here",
      apply: { $0.app.pushRuntimeLimit = $1.duration }, read: { .duration($0.app.pushRuntimeLimit) }),
    Device(
      "client", .choice(SyncClient.allCases.map(\.rawValue)), default: .choice("coreData"),
      source: "[A] NSPersistentCloudKitContainer; CKSyncEngine (iOS 17+)",
      meaning: "the sync client the app runs: Core Data's mirroring or CKSyncEngine (docs/sync-engine.md)",
      apply: { $0.client = SyncClient(rawValue: $1.word) ?? .coreData }, read: { .choice($0.client.rawValue) }),
    Device(
      "syncEngine.batchRecords", .integer(min: 1, max: 100_000), unit: "records", default: .integer(250),
      source: "[A] RecordZoneChangeBatch stops at the maximum batch size; [C] sqlite-data #333 sent 1,360",
      meaning: "records per send batch; above the server's 400 the request fails with limitExceeded",
      apply: { $0.syncEngine.batchRecords = Int32($1.integer) },
      read: { .integer(Int($0.syncEngine.batchRecords)) }),
    Device(
      "syncEngine.immediatePushFetch", .bool, default: .bool(true),
      source: "[RE] immediatePushSyncEnabled, on for apps (UNCONFIRMED)",
      meaning: "a push reaching a running app fetches at once, without dasd's decision",
      apply: { $0.syncEngine.immediatePushFetch = $1.bool }, read: { .bool($0.syncEngine.immediatePushFetch) }),
    Device(
      "syncEngine.fetchOnActivation", .bool, default: .bool(false),
      source: "[A] CKSyncEngine docs: its schedule is indeterminate, fetchChanges syncs at once; [C] apps add their "
        + "own fetch on activation (wBlock PR #487, sqlite-data PR #286)",
      meaning: "the engine fetches on each activation, not only when its process launches",
      apply: { $0.syncEngine.fetchOnActivation = $1.bool }, read: { .bool($0.syncEngine.fetchOnActivation) }),
    Device(
      "syncEngine.sendOnResign", .bool, default: .bool(false),
      source: "[C] sqlite-data PR #167: the engine does not send on backgrounding; apps call sendChanges",
      meaning: "the app calls sendChanges when it leaves the foreground, inside its background task",
      apply: { $0.syncEngine.sendOnResign = $1.bool },
      read: { .bool($0.syncEngine.sendOnResign) }),
    Device(
      "syncEngine.statePersistLag", .duration(positive: false), unit: "s", default: .duration("0s"),
      source: "[A] the app persists State.Serialization; [C] sample-cloudkit-sync-engine #5",
      meaning: "from a pending change to the app's writing of the engine's state: a crash inside it loses the change",
      apply: { $0.syncEngine.statePersistLag = $1.duration },
      read: { .duration($0.syncEngine.statePersistLag) }),
  ]
}
