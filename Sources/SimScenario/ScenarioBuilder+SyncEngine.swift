import SimModel

/// What a scenario with CKSyncEngine devices must satisfy (`docs/sync-engine.md`): no public
/// database, no Core Data-only action on them and no manual sync on Core Data, records the two
/// clients can share, and the engine's background hold in the policy set.
extension ScenarioBuilder {
  /// Checks the devices' clients against their stores, and mixed zones against the data model.
  func checkClients(_ spec: WorldSpec, _ groups: [Group]) {
    var coreDataAccounts = Set<Int>()  // membership only
    var engineAccounts = Set<Int>()
    for group in groups {
      let device = group.template
      guard device.client == .syncEngine else {
        for member in group.first..<group.first + group.count { coreDataAccounts.insert(spec.devices[member].account) }
        continue
      }
      for member in group.first..<group.first + group.count { engineAccounts.insert(spec.devices[member].account) }
      for (index, store) in device.stores.enumerated() where store == .publicDatabase {
        reader.problem(
          ScenarioReader.index(ScenarioReader.join(group.path, "stores"), index),
          "CKSyncEngine does not sync a public database",
          hint: "use \"private\" or a shared zone, or \"client\": \"coreData\" (its public store polls)")
      }
    }
    let linked = spec.entities.contains { $0.manyToManyLinksPerObject > 0 }
    if linked && !coreDataAccounts.isDisjoint(with: engineAccounts) {
      reader.problem(
        "devices",
        "a Core Data device and a CKSyncEngine device share a zone, and the model has many-to-many relationships",
        hint: "Core Data stores them as CDMR join records, which the CKSyncEngine app would have to write itself; "
          + "give the two clients different accounts, or drop the many-to-many relationships")
    }
  }

  /// Checks that each timeline action suits its devices' client: CKSyncEngine's manual calls only
  /// on its devices, Core Data's mirroring resets and container re-creation only on Core Data's.
  func checkClientActions(_ action: TimelineAction.Action, devices: [Int], _ path: String, _ spec: WorldSpec) {
    // Only an action for one client, naming a device of the other, is refused.
    guard let only = action.onlyFor, devices.contains(where: { spec.devices[$0].client != only }) else { return }
    switch action {
    case .saveOutsideEngine:
      reader.problem(
        path, "saveOutsideEngine is a CKSyncEngine app's save that bypasses its engine",
        hint: "name only devices with \"client\": \"syncEngine\"")
    case .sendChanges, .fetchChanges:
      reader.problem(
        path, "Core Data has no sendChanges or fetchChanges",
        hint: "name only devices with \"client\": \"syncEngine\"; a Core Data app's nudge is {\"nudge\": {}}")
    case .resetSync, .toggleSync:
      reader.problem(
        path, "a mirroring reset and re-creating the container are Core Data's",
        hint: "name only devices with \"client\": \"coreData\"")
    default:
      // An action declared for one client (`onlyFor`) that has no message of its own yet.
      reader.problem(
        path, "this action is only for \(only.rawValue)'s devices",
        hint: "name only devices with \"client\": \"\(only.rawValue)\"")
    }
  }

  /// Puts CKSyncEngine's background hold in the policy set of a world with a CKSyncEngine device,
  /// unless the scenario names it (on or off).
  func addEngineHold(_ spec: inout WorldSpec, schedulerNode: JSONNode?) {
    guard spec.devices.contains(where: { $0.client == .syncEngine }),
      !spec.scheduler.policies.contains(where: { $0.name == SyncEngineBackgroundPolicy.definition.name }),
      schedulerNode?.member("policies")?.member(SyncEngineBackgroundPolicy.definition.name) == nil,
      policyRegistry.definition(named: SyncEngineBackgroundPolicy.definition.name) != nil
    else { return }
    spec.scheduler.policies.append(SyncEngineBackgroundPolicy())
  }
}
