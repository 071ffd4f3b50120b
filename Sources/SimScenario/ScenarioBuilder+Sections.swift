import SimKernel
import SimMetrics
import SimModel

extension ScenarioBuilder {
  /// `cloud`, `push` and `polling`: every key is declared in `ParameterTable`.
  func section(_ name: String, _ node: JSONNode?, _ spec: inout WorldSpec) {
    readParameters(parameters.world, groups: parameters.worldGroups, group: name, node, name, into: &spec)
  }

  /// `scheduler`: the declared keys, and `policies` from the policy registry.
  func scheduler(_ node: JSONNode?, _ spec: inout WorldSpec) {
    spec.scheduler.policies = policyRegistry.defaultPolicies
    guard
      let fields = readParameters(
        parameters.world, groups: parameters.worldGroups, group: "scheduler", node, "scheduler",
        extra: ["policies"], into: &spec)
    else { return }
    let path = ScenarioReader.join("scheduler", "policies")
    if let policies = reader.object(fields["policies"], path, known: policyRegistry.names) {
      spec.scheduler.policies = self.policies(policies, path)
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
