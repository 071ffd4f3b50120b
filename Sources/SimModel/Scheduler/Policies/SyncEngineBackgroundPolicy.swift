import SimKernel

/// CKSyncEngine's background hold: an automatic send of a CKSyncEngine app does not run while the
/// app is out of the foreground on a device that suspends it; it lifts at the next activation.
/// [C] sqlite-data PR #167: "CKSyncEngine will not upload pending changes when the app is
/// backgrounded". Not dasd's policy but the engine's behaviour, evaluated with the policies so
/// that its wait is named in results. The scenario builder puts it in the set of a world with a
/// CKSyncEngine device unless the scenario turns it off; it never refuses a Core Data activity,
/// a fetch, a send the app started itself (`sendChanges`, `sendOnResign`) or a Mac app's send.
public struct SyncEngineBackgroundPolicy: SchedulerPolicy {
  public var name: String { Self.definition.name }
  public var inputs: PolicyInputs { [.appState, .client] }

  public init() {}

  public func evaluate(_ activity: PolicyContext) -> PolicyVerdict {
    let held =
      activity.client == .syncEngine && activity.kind == .export && !activity.appInForeground
      && activity.appSuspendsInBackground
    return held ? .refuse(until: nil) : .proceed
  }

  public static let definition = PolicyDefinition(
    name: "syncEngineBackground",
    summary: "holds a CKSyncEngine app's automatic send while the app is out of the foreground (iOS); lifts on "
      + "activation (on in worlds with a CKSyncEngine device)",
    source: "[C] sqlite-data PR #167", isOnByDefault: false, options: []
  ) { _ in SyncEngineBackgroundPolicy() }
}
