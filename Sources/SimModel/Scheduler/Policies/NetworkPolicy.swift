import SimKernel

/// Network policy: CloudKit activities wait for connectivity. [A] CKSyncEngine docs.
public struct NetworkPolicy: SchedulerPolicy {
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.conditions] }
  public init() {}

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    activity.online ? .proceed : .refuse(until: nil)
  }

  public static let definition = PolicyDefinition(
    name: "network", summary: "CloudKit activities wait for connectivity; lifts when the device is online",
    source: "[A] CKSyncEngine", isOnByDefault: true
  ) { _ in NetworkPolicy() }
}
