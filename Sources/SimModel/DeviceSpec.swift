import SimKernel

/// Which database a device's store mirrors.
public enum StoreKind: Equatable, Sendable {
  /// The account's private database zone.
  case privateDatabase
  /// A shared zone owned by `ownerAccount`, visible to `participants` accounts too.
  case sharedDatabase(ownerAccount: Int, participants: [Int])
  /// The container's public database.
  case publicDatabase
  /// A local-only configuration: never syncs.
  case localOnly
}

/// One device: an install of the app signed in to an account.
public struct DeviceSpec: Sendable {
  public var name: String
  public var account: Int
  public var app: AppBehaviour {
    get { profile.value.app }
    _modify { yield &profile.value.app }
  }
  public var conditions: DeviceConditions {
    get { profile.value.conditions }
    _modify { yield &profile.value.conditions }
  }
  public var initialAppState = AppState.foreground
  /// Per-device request latency; nil uses the server's.
  public var requestLatency: Distribution? {
    get { profile.value.requestLatency }
    _modify { yield &profile.value.requestLatency }
  }
  /// The app, conditions and request latency, shared by the devices of a group until one is
  /// changed (`SharedValue`).
  private var profile = SharedValue(Profile())

  /// The sync client the app runs over CloudKit: Core Data's mirroring (the default) or
  /// CKSyncEngine (iOS 17+). [A] NSPersistentCloudKitContainer, CKSyncEngine
  public var client: SyncClient {
    get { profile.value.client }
    _modify { yield &profile.value.client }
  }
  /// How a CKSyncEngine app sends and fetches (read only when `client` is `syncEngine`). Kept
  /// beside the app's behaviour, not in it: the world copies that into every device's state, which
  /// every decision reads, and only an engine's few decisions read this.
  public var syncEngine: SyncEngineBehaviour {
    get { profile.value.syncEngine }
    _modify { yield &profile.value.syncEngine }
  }

  /// What a scenario's device entry sets for all its members.
  struct Profile: Sendable {
    var app = AppBehaviour()
    var conditions = DeviceConditions()
    var requestLatency: Distribution?
    var client = SyncClient.coreData
    var syncEngine = SyncEngineBehaviour()
  }
  /// The stores; edits go to the first syncing store unless a workload or action names another.
  public var stores: [StoreKind] = [.privateDatabase]
  /// The model version the app on this device runs (the version-attribute strategy of [CDModel]):
  /// it fetches only records created by this version or older.
  public var modelVersion = 1
  /// The index that keys its random streams: its position in the whole world, kept when the
  /// device runs in a part of it (`WorldPartitioning`), so that its draws do not depend on the
  /// partition. nil: its position in `WorldSpec.devices`.
  public var streamIndex: Int?
  /// Background edits at random times.
  public var workload: Workload? {
    get { sharedWorkload.value }
    _modify { yield &sharedWorkload.value }
  }
  /// App sessions at random times.
  public var usage: UsageModel? {
    get { sharedUsage.value }
    _modify { yield &sharedUsage.value }
  }
  /// The workload and the usage, each stored once for the devices given it together
  /// (`WorldSpec.setWorkload`, `setUsage`): inline they took 208 of a device's 280 bytes, held
  /// for the whole run, 200 MB at a million devices.
  private var sharedWorkload = SharedValue<Workload?>(nil)
  private var sharedUsage = SharedValue<UsageModel?>(nil)

  /// Gives this device `other`'s workload, stored once for both.
  mutating func shareWorkload(of other: DeviceSpec) { sharedWorkload = other.sharedWorkload }

  /// Gives this device `other`'s usage, stored once for both.
  mutating func shareUsage(of other: DeviceSpec) { sharedUsage = other.sharedUsage }

  /// Whether this device's workload and usage are stored in `other`'s storage, each.
  func sharesSchedules(with other: DeviceSpec) -> (workload: Bool, usage: Bool) {
    (sharedWorkload.sharesStorage(with: other.sharedWorkload), sharedUsage.sharesStorage(with: other.sharedUsage))
  }

  public init(name: String, account: Int = 0) {
    self.name = name
    self.account = account
  }
}
