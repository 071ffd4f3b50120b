extension WorldSpec {
  /// The record zones a world of this spec has, in the order it creates them, and the zone each
  /// stores, devices' stores one after another in device order (−1: a local-only store,
  /// or a shared store of an account that is neither the owner nor a participant).
  ///
  /// One zone per account with a private store, one per distinct share (owner and participants),
  /// one for the public database. The world builds its zones from this, and the scenario checks
  /// the container's zone limit against it.
  public func zoneLayout() -> (zones: [(scope: DatabaseScope, owner: Int)], storeZones: [Int32]) {
    Self.zoneLayout(of: devices)
  }

  /// The layout of a world whose devices are `devices` (a scenario run in shards lists its device
  /// entries' members without expanding them).
  @_specialize(exported:true,where Devices == EntryMembers)
  public static func zoneLayout<Devices: Collection<DeviceSpec>>(
    of devices: Devices
  ) -> (zones: [(scope: DatabaseScope, owner: Int)], storeZones: [Int32]) {
    var zones: [(scope: DatabaseScope, owner: Int)] = []
    var privateZoneOfAccount = [Int32](repeating: -1, count: (devices.lazy.map(\.account).max() ?? 0) + 1)
    var sharedZones: [(owner: Int, participants: [Int], zone: Int32)] = []
    var publicZone: Int32 = -1
    func make(_ scope: DatabaseScope, owner: Int) -> Int32 {
      zones.append((scope, owner))
      return Int32(zones.count - 1)
    }
    let storeZones = devices.flatMap { device in
      device.stores.map { store -> Int32 in
        switch store {
        case .localOnly:
          return -1
        case .privateDatabase:
          if privateZoneOfAccount[device.account] < 0 {
            privateZoneOfAccount[device.account] = make(.private, owner: device.account)
          }
          return privateZoneOfAccount[device.account]
        case .sharedDatabase(let owner, let participants):
          guard owner == device.account || participants.contains(device.account) else { return -1 }
          if let existing = sharedZones.first(where: { $0.owner == owner && $0.participants == participants }) {
            return existing.zone
          }
          let zone = make(.shared, owner: owner)
          sharedZones.append((owner, participants, zone))
          return zone
        case .publicDatabase:
          if publicZone < 0 { publicZone = make(.public, owner: 0) }
          return publicZone
        }
      }
    }
    return (zones, storeZones)
  }
}
