import SimKernel

/// Activity Group policy: at most `limit` running activities per group (one group per app and
/// store). [A] TN3163 rationale `currentAvailableLimit == 0`; limit 1 [assumed].
public struct ActivityGroupPolicy: SchedulerPolicy {
  public var limit = 1
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.activityGroup] }
  public init(limit: Int = 1) { self.limit = limit }

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.runningInGroup < limit ? .proceed : .refuse(until: nil)
  }

  public static let definition = PolicyDefinition(
    name: "activityGroup",
    summary: "at most `limit` running activities per group (one group per app and store); lifts when one finishes",
    source: "[A] TN3163 + [RE]", isOnByDefault: true,
    options: [
      PolicyOption(
        key: "limit", kind: .integer(min: 1, max: 1000), defaultText: "1", source: "[assumed] 1",
        meaning: "running activities allowed per group")
    ]
  ) { options in
    ActivityGroupPolicy(limit: options.integer("limit") ?? 1)
  }
}
