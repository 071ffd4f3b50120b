import SimKernel
import SimMetrics
import SimModel

extension ScenarioBuilder {
  func cloud(_ node: JSONNode?, _ spec: inout WorldSpec) {
    let keys = [
      "requestLatency", "recordsPerOperation", "bytesPerOperation", "savePolicy", "importPageSize",
      "applyTimePerRecord", "applyTimeScalesWithZone", "setupTime", "initialImportTime",
      "recordOverheadBytes", "joinRecordBytes", "assetThresholdBytes", "serverMaxRecordsPerRequest",
      "serverMaxBytesPerRequest", "throttle", "networkFailureProbability", "networkRetryBackoff",
      "networkRetryBackoffCap",
      "quotaBytesPerAccount", "poisonRecordProbability", "changeTokenRetention", "deviceThrottleRequestsPerMinute",
      "zoneBusyProbability", "zoneBusyBackoff", "zoneBusyBackoffCap",
    ]
    guard let fields = reader.object(node, "cloud", known: keys) else { return }
    let path = { ScenarioReader.join("cloud", $0) }
    if let latency = reader.distribution(fields["requestLatency"], path("requestLatency")) {
      spec.server.requestLatency = latency
    }
    if let records = reader.integer(fields["recordsPerOperation"], path("recordsPerOperation"), min: 1, max: 100_000) {
      spec.server.recordsPerOperation = records
    }
    if let bytes = reader.integer(fields["bytesPerOperation"], path("bytesPerOperation"), min: 1, max: 1 << 40) {
      spec.server.bytesPerOperation = bytes
    }
    if let policy = reader.choice(fields["savePolicy"], path("savePolicy"), ServerSavePolicy.self) {
      spec.server.savePolicy = policy
    }
    if let page = reader.integer(fields["importPageSize"], path("importPageSize"), min: 1, max: 100_000) {
      spec.server.importPageSize = page
    }
    if let apply = reader.duration(fields["applyTimePerRecord"], path("applyTimePerRecord")) {
      spec.server.applyTimePerRecordSeconds = apply.seconds
    }
    if let scales = reader.bool(fields["applyTimeScalesWithZone"], path("applyTimeScalesWithZone")) {
      spec.server.applyTimeScalesWithZone = scales
    }
    if let setup = reader.duration(fields["setupTime"], path("setupTime")) {
      spec.server.setupSeconds = setup.seconds
    }
    if let initial = reader.duration(fields["initialImportTime"], path("initialImportTime")) {
      spec.server.initialImportSeconds = initial.seconds
    }
    if let overhead = reader.integer(fields["recordOverheadBytes"], path("recordOverheadBytes"), min: 0, max: 1 << 30) {
      spec.server.recordOverheadBytes = overhead
    }
    if let join = reader.integer(fields["joinRecordBytes"], path("joinRecordBytes"), min: 0, max: 1 << 30) {
      spec.server.joinRecordBytes = join
    }
    if let threshold = reader.integer(fields["assetThresholdBytes"], path("assetThresholdBytes"), min: 1, max: 1 << 40)
    {
      spec.server.assetThresholdBytes = threshold
    }
    if let records = reader.integer(
      fields["serverMaxRecordsPerRequest"], path("serverMaxRecordsPerRequest"), min: 1, max: 100_000)
    {
      spec.server.serverMaxRecordsPerRequest = records
    }
    if let bytes = reader.integer(
      fields["serverMaxBytesPerRequest"], path("serverMaxBytesPerRequest"), min: 1, max: 1 << 40)
    {
      spec.server.serverMaxBytesPerRequest = bytes
    }
    if let throttle = reader.object(
      fields["throttle"], path("throttle"), known: ["requestsPerSecond", "retryAfter", "retryAfterHolds"])
    {
      let throttlePath = path("throttle")
      if let rate = reader.required(throttle, "requestsPerSecond", throttlePath, { reader.number($0, $1, above: 0) }) {
        spec.server.throttleRequestsPerSecond = rate
      }
      if let retry = reader.distribution(throttle["retryAfter"], ScenarioReader.join(throttlePath, "retryAfter")) {
        spec.server.throttleRetryAfter = retry
      }
      if let holds = reader.string(throttle["retryAfterHolds"], ScenarioReader.join(throttlePath, "retryAfterHolds")) {
        switch holds {
        case "device": spec.server.retryAfterHoldsContainer = false
        case "container": spec.server.retryAfterHoldsContainer = true
        default:
          reader.problem(
            ScenarioReader.join(throttlePath, "retryAfterHolds"), "unknown value \"\(holds)\"",
            hint: "device (the one answered; the default) or container (every device)")
        }
      }
    }
    if let p = reader.ratio(fields["networkFailureProbability"], path("networkFailureProbability")) {
      if p >= 1 {
        reader.problem(path("networkFailureProbability"), "1 would retry forever", hint: "use less than 1")
      } else {
        spec.server.networkFailureProbability = p
      }
    }
    if let backoff = reader.duration(fields["networkRetryBackoff"], path("networkRetryBackoff")) {
      spec.server.networkRetryBackoffSeconds = backoff.seconds
    }
    if let cap = reader.duration(fields["networkRetryBackoffCap"], path("networkRetryBackoffCap")) {
      spec.server.networkRetryBackoffCapSeconds = cap.seconds
    }
    if let quota = reader.integer(
      fields["quotaBytesPerAccount"], path("quotaBytesPerAccount"), min: 0, max: Int.max / 2)
    {
      spec.server.quotaBytesPerAccount = Int64(quota)
    }
    if let poison = reader.ratio(fields["poisonRecordProbability"], path("poisonRecordProbability")) {
      spec.server.poisonRecordProbability = poison
    }
    if let limit = reader.number(
      fields["deviceThrottleRequestsPerMinute"], path("deviceThrottleRequestsPerMinute"), above: 0)
    {
      spec.server.deviceThrottleRequestsPerMinute = limit
    }
    if let p = reader.ratio(fields["zoneBusyProbability"], path("zoneBusyProbability")) {
      if p >= 1 {
        reader.problem(path("zoneBusyProbability"), "1 would retry forever", hint: "use less than 1")
      } else {
        spec.server.zoneBusyProbability = p
      }
    }
    if let backoff = reader.duration(fields["zoneBusyBackoff"], path("zoneBusyBackoff"), positive: true) {
      spec.server.zoneBusyBackoffSeconds = backoff.seconds
    }
    if let cap = reader.duration(fields["zoneBusyBackoffCap"], path("zoneBusyBackoffCap"), positive: true) {
      spec.server.zoneBusyBackoffCapSeconds = cap.seconds
    }
    if let retention = reader.duration(fields["changeTokenRetention"], path("changeTokenRetention"), positive: true) {
      spec.server.changeTokenRetentionSeconds = retention.seconds
    }
  }

  func push(_ node: JSONNode?, _ spec: inout WorldSpec) {
    let keys = [
      "fanoutLatency", "deliveryLatency", "dropProbability", "backgroundBudgetPerHour", "coalescingWindow",
      "offlineStorage",
    ]
    guard let fields = reader.object(node, "push", known: keys) else { return }
    let path = { ScenarioReader.join("push", $0) }
    if let latency = reader.distribution(fields["fanoutLatency"], path("fanoutLatency")) {
      spec.push.fanoutLatency = latency
    }
    if let delivery = reader.duration(fields["deliveryLatency"], path("deliveryLatency")) {
      spec.push.deliveryLatencySeconds = delivery.seconds
    }
    if let drop = reader.ratio(fields["dropProbability"], path("dropProbability")) { spec.push.dropProbability = drop }
    if let budget = reader.integer(
      fields["backgroundBudgetPerHour"], path("backgroundBudgetPerHour"), min: 0, max: 1_000_000)
    {
      spec.push.backgroundPushBudgetPerHour = budget
    }
    if let window = reader.duration(fields["coalescingWindow"], path("coalescingWindow")) {
      spec.push.coalescingWindowSeconds = window.seconds
    }
    if let storage = reader.duration(fields["offlineStorage"], path("offlineStorage")) {
      spec.push.offlineStorageSeconds = storage.seconds
    }
  }

  func polling(_ node: JSONNode?, _ spec: inout WorldSpec) {
    guard let fields = reader.object(node, "polling", known: ["interval", "clock"]) else { return }
    if let interval = reader.duration(fields["interval"], "polling.interval", positive: true) {
      if interval < .seconds(1) {
        reader.problem(
          "polling.interval", "\(DurationText.format(interval)) is below the limit of 1s",
          hint: "a poll is a request to the server; documented intervals are 30 minutes to a day [A TN3164]")
      }
      spec.polling.intervalSeconds = interval.seconds
    }
    if let clock = reader.string(fields["clock"], "polling.clock") {
      switch clock {
      case "appUse": spec.polling.appUseClock = true
      case "wallClock": spec.polling.appUseClock = false
      default: reader.problem("polling.clock", "unknown value \"\(clock)\"", hint: "appUse or wallClock")
      }
    }
  }

  func scheduler(_ node: JSONNode?, _ spec: inout WorldSpec) {
    let keys = [
      "decisionLatency", "reevaluationLatency", "exportStartDelay", "importStartDelay", "emptyExportDuration",
      "policyValidity", "exportRequestCoalescing", "policies",
    ]
    spec.scheduler.policies = policyRegistry.defaultPolicies
    guard let fields = reader.object(node, "scheduler", known: keys) else { return }
    let path = { ScenarioReader.join("scheduler", $0) }
    if let latency = reader.distribution(fields["decisionLatency"], path("decisionLatency")) {
      spec.scheduler.decisionLatency = latency
    }
    if let value = reader.duration(fields["reevaluationLatency"], path("reevaluationLatency")) {
      spec.scheduler.reevaluationLatencySeconds = value.seconds
    }
    if let value = reader.duration(fields["exportStartDelay"], path("exportStartDelay")) {
      spec.scheduler.exportStartDelaySeconds = value.seconds
    }
    if let value = reader.duration(fields["importStartDelay"], path("importStartDelay")) {
      spec.scheduler.importStartDelaySeconds = value.seconds
    }
    if let value = reader.duration(fields["emptyExportDuration"], path("emptyExportDuration")) {
      spec.scheduler.emptyExportSeconds = value.seconds
    }
    if let value = reader.duration(fields["policyValidity"], path("policyValidity"), positive: true) {
      if value < .seconds(1) {
        reader.problem(
          path("policyValidity"), "\(DurationText.format(value)) is below the limit of 1s",
          hint: "a blocked activity is re-checked once per validity; the default is 900s [RE], and below a second "
            + "re-checks only spin")
      }
      spec.scheduler.policyValiditySeconds = value.seconds
    }
    if let value = reader.bool(fields["exportRequestCoalescing"], path("exportRequestCoalescing")) {
      spec.exportRequestCoalescing = value
    }
    if let policies = reader.object(fields["policies"], path("policies"), known: policyRegistry.names) {
      spec.scheduler.policies = self.policies(policies, path("policies"))
    }
  }

  /// The policy set in the registry's order; a policy is on with `true` or an object (its
  /// options), off with `false`, and at its registry default when not named.
  func policies(_ fields: Fields, _ path: String) -> [any SchedulerPolicy] {
    var result: [any SchedulerPolicy] = []
    for definition in policyRegistry.definitions {
      guard let node = fields[definition.name] else {
        if definition.isOnByDefault { result.append(definition.makeDefault()) }
        continue
      }
      if case .bool(let on) = node.value {
        if on { result.append(definition.makeDefault()) }
        continue
      }
      let policyPath = ScenarioReader.join(path, definition.name)
      guard let options = reader.object(node, policyPath, known: definition.options.map(\.key)) else { continue }
      var values = PolicyOptionValues()
      for option in definition.options {
        if let value = policyOption(option, options[option.key], ScenarioReader.join(policyPath, option.key)) {
          values.set(option.key, value)
        }
      }
      result.append(definition.make(values))
    }
    return result
  }

  /// One option's value, read as its kind says (nil when absent or wrong; wrong is a problem).
  func policyOption(_ option: PolicyOption, _ node: JSONNode?, _ path: String) -> PolicyOptionValues.Value? {
    switch option.kind {
    case .integer(let min, let max): reader.integer(node, path, min: min, max: max).map { .integer($0) }
    case .number(let min, let max): reader.number(node, path, min: min, max: max).map { .number($0) }
    case .duration(let positive, let maxSeconds):
      reader.duration(node, path, positive: positive, max: SimDuration(seconds: maxSeconds)).map {
        .seconds($0.seconds)
      }
    case .bool: reader.bool(node, path).map { .bool($0) }
    case .rateLimitWindows: rateLimitWindows(node, path).map { .rateLimitWindows($0) }
    }
  }

  func rateLimitWindows(_ node: JSONNode?, _ path: String) -> [RateLimitWindow]? {
    guard let windows = reader.array(node, path, maxCount: 32) else { return nil }
    return windows.enumerated().compactMap { index, window in
      let windowPath = ScenarioReader.index(path, index)
      guard let fields = reader.object(window, windowPath, known: ["maxRuns", "window"]) else { return nil }
      let runs = reader.required(fields, "maxRuns", windowPath) { reader.integer($0, $1, min: 1, max: 10_000_000) }
      let length = reader.required(fields, "window", windowPath) {
        reader.duration($0, $1, positive: true, max: .days(30))
      }
      guard let runs, let length else { return nil }
      return RateLimitWindow(maxRuns: runs, windowSeconds: length.seconds)
    }
  }
}
