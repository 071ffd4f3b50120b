import SimKernel

/// The CloudKit server and network path (spec §6–7). Every default carries its source tag.
public struct ServerParameters: Equatable, Sendable {
  /// Round trip of one CloudKit request, seconds. [assumed] lognormal, median 150 ms, p99 2 s.
  public var requestLatency = Distribution.lognormal(median: 0.15, p99: 2)
  /// Records per modify request. [A][RE] 400 (limitExceeded doc; PFCloudKitExporterOptions).
  public var recordsPerOperation = 400
  /// Record bytes per modify request, assets excluded. [RE] 1,572,864 (OpenCloudData exporter).
  public var bytesPerOperation = 1_572_864
  /// Field-level or record-level last-arrival-wins. [W] WWDC19 "last writer wins"; [RE] changedKeys.
  public var savePolicy = ServerSavePolicy.changedKeys
  /// Records per page of a fetch-changes response. [C] ~200 (spec §8, assumed).
  public var importPageSize = 200
  /// Time to apply one imported record to a store whose zone holds 4,096 records, seconds.
  /// [C] 2.2 ms: fitted with `applyTimeScalesWithZone` to a measured first import (eczema-helper
  /// #713: 100 rows in 1.7 s, 4,100 in 14.5 s) and to Apple's "about 83 minutes per million
  /// records" (WWDC22 Core Data lounge); spec §8's ~3.5 ms is the figure this refines.
  public var applyTimePerRecord = SimDuration(seconds: 0.0022)
  /// Whether the apply time grows with log₂ of the zone's record count (as an index lookup per
  /// record does: the mirroring metadata holds a row per record), scaled so that a zone of 4,096
  /// records costs `applyTimePerRecord`; false keeps it constant. [C] the fit above:
  /// without it the two published figures disagree by half (0.64 s against 1 s per page).
  public var applyTimeScalesWithZone = true
  /// The container's setup on a store's first launch (the `setup` event: checking or creating
  /// its zone and database subscription) before its first import is asked for, seconds.
  /// [C] 0.8 s: the measured first import began 1.2 s after launch (eczema-helper #713), of
  /// which dasd's decision and the import's start delay take about 0.4 s.
  public var setupTime = SimDuration(seconds: 0.8)
  /// The fixed cost of an import from an empty token (a first import, or one after a reset):
  /// fetching the database's changed zones before the zone's changes, and preparing the
  /// import, seconds; added to its first page. [C] 1.3 s, fitted to the measured 1.7 s for
  /// 100 rows (eczema-helper #713).
  public var initialImportTime = SimDuration(seconds: 1.3)
  /// Fixed overhead bytes of one record beside its fields. [assumed] 300 B (record name, system fields).
  public var recordOverheadBytes = 300
  /// Size of a CDMR join record, bytes. [assumed] 400 B.
  public var joinRecordBytes = 400
  /// String/binary fields above this many bytes become CKAsset uploads. [W] WWDC19 ~750 KB.
  public var assetThresholdBytes = 750_000
  /// A record above this many bytes moves its largest fields to assets. [A] TN3164: 1 MB.
  public var maxRecordBytes = 1_000_000
  /// Asset bytes per modify request: nil (the default) never cuts a batch for its assets, as Core
  /// Data's exporter counts only `CKRecord.size`, which leaves asset files out ([RE] OpenCloudData's
  /// export context: 400 items and 1.5 MiB of record size; [A] limitExceeded: "2 MB per request
  /// (not counting asset sizes)"); a value cuts batches there too (a record never splits).
  public var assetBytesPerOperation: Int? = nil
  /// What a deleted record's ID adds to a modify request: Core Data's estimate, the zone name's
  /// length plus the record name's plus 24 ([RE] OpenCloudData `estimateByteSizeOfRecordID`), for
  /// its zone `com.apple.coredata.cloudkit.zone` (32) and a UUID record name (36).
  public static let deletedRecordIDBytes = 32 + 36 + 24
  /// The largest asset CloudKit documents: 50 MB per asset field ([A] CloudKit Web Services
  /// reference, "Data Size Limits"); a model attribute above it draws a warning.
  public static let documentedMaxAssetBytes = 50_000_000
  /// The server's own limits; a larger request fails with limitExceeded. [A] 400 items, 2 MB.
  public var serverMaxRecordsPerRequest = 400
  public var serverMaxBytesPerRequest = 2_000_000
  /// Requests per second the container accepts before answering serviceUnavailable; nil = no
  /// throttle. [A] TN3162 (no public threshold: [assumed]).
  public var throttleRequestsPerSecond: Double? = nil
  /// The retry-after of a throttled request, seconds. [A][C] lognormal, median 37 s, p99 113 s:
  /// fitted (log mean and deviation) to the four published framework values: 20.5 s (Apple
  /// forums 770908, DTS-confirmed), 30 s (TN3162), 51.6 s (TN3162's requestRateLimited
  /// example) and 57.7 s (a developer's log in a WWDC23 Q&A). Mean 41 s. TN3162's Web Services
  /// example of 110,207 s (30.6 h) is another API's and lies far outside; set it per scenario.
  public var throttleRetryAfter = Distribution.lognormal(median: 37, p99: 113)
  /// Whom a serviceUnavailable retry-after holds back: the device that was answered (false, the
  /// default: each device learns it from its own answer, as CKError delivers it [A] CKError.h,
  /// TN3162), or every device of the container (true: spec §11.9 read literally).
  public var retryAfterHoldsContainer = false
  /// The client's own back-off on repeated throttles: nil (the default) waits exactly the stated
  /// retry-after, as Apple documents ([A] CKError "Use the value of the CKErrorRetryAfterKey key as
  /// the number of seconds to wait", TN3162 "automatically recover when the throttles expire"); a
  /// cap doubles the wait from the retry-after on each consecutive throttled answer, up to the cap,
  /// as peer engines do ([C] Mindwtr #948, TablePro #2975). No source shows Core Data or
  /// CKSyncEngine backing off beyond the retry-after.
  public var throttleBackoffCap: SimDuration? = nil
  /// Requests per minute one device may send before answers turn to requestRateLimited (a
  /// device-side throttle, TN3162); nil = none.
  public var deviceThrottleRequestsPerMinute: Double? = nil
  /// The retry-after of a requestRateLimited answer. [A][C] as `throttleRetryAfter` (the published
  /// values do not tell the two errors apart: TN3162's 51.6 s is a requestRateLimited).
  public var deviceThrottleRetryAfter = Distribution.lognormal(median: 37, p99: 113)
  /// Probability that the container's setup on a store's first use fails with serviceUnavailable
  /// ("Error connecting to CloudKit daemon"), to be tried again after `setupRetryAfter`. [assumed] 0.
  public var setupFailureProbability = 0.0
  /// The retry-after of a failed setup. [C] 5 s: a logged "Service Unavailable … Error connecting
  /// to CloudKit daemon … Retry after 5.0 seconds" during the mirroring delegate's setup.
  public var setupRetryAfter = Distribution.constant(5)
  /// Probability that a request answers zoneBusy. [assumed] 0.
  public var zoneBusyProbability = 0.0
  /// The first zoneBusy delay, doubling per attempt. [A] CKError.h "a few seconds": 2 s [assumed].
  public var zoneBusyBackoff = SimDuration(seconds: 2.0)
  /// The longest zoneBusy delay: the doubling stops here. [assumed] 5 min, as the network
  /// back-off's cap (the swarm found an uncapped delay of 2.3 h after a long run of other errors).
  public var zoneBusyBackoffCap = SimDuration(seconds: 300.0)
  /// The settings request faults declare for themselves (`RequestFault.knobs`), each with its
  /// default and source in its fault's file.
  public var faultKnobs = FaultKnobValues()
  /// Probability that a request fails with networkFailure while online. [assumed] 0.
  public var networkFailureProbability = 0.0
  /// Backoff after the first immediate retry, doubling per attempt up to the cap, seconds.
  /// [A] CKError.h "retry immediately, but implement a backoff"; values [assumed].
  public var networkRetryBackoff = SimDuration(seconds: 1.0)
  public var networkRetryBackoffCap = SimDuration(seconds: 300.0)
  /// iCloud storage per account in bytes; nil = unlimited. [A] quotaExceeded.
  public var quotaBytesPerAccount: Int64? = nil
  /// Probability that a new object is a poison record the server always refuses. [assumed] 0.
  public var poisonRecordProbability = 0.0
  /// How long the server keeps the change history a token refers to; nil = forever. [assumed]
  public var changeTokenRetention: SimDuration? = nil

  public init() {}
}

/// Silent push delivery through APNs (spec §7).
public struct PushParameters: Equatable, Sendable {
  /// From the server's commit to apsd on the device, seconds. [assumed] lognormal median 2 s, p99 60 s
  /// (Apple promises "within about a minute" end to end; research §12 `pushFanoutLatency`).
  public var fanoutLatency = Distribution.lognormal(median: 2, p99: 60)
  /// From apsd to the app. [A] TN3163 example 0.1 s.
  public var deliveryLatency = SimDuration(seconds: 0.1)
  /// Probability that APNs drops a push. [assumed] 0.
  public var dropProbability = 0.0
  /// Background pushes per hour that wake the app; more are held. [A] "two or three per hour": 3.
  public var backgroundBudgetPerHour = 3
  /// Background pushes per day that wake apps, device-wide (all apps share it; the budget resets
  /// every 24 hours of the run); nil = no daily budget. [C] Apple developer forums 776933: "the
  /// budgets are reset every 24 hours"; no number is published.
  public var backgroundBudgetPerDay: Int? = nil
  /// Below this battery level, APNs defers a background push to an app not in front (the newest
  /// kept) until the level is back above it, as in Low Power Mode. [W] WWDC20 10063 names battery
  /// level among what a background push's delivery depends on; the level [assumed], so nil (off)
  /// by default: the push is delivered and only its import waits (`criticalBattery`).
  public var deferBelowBatteryPercent: Double? = nil
  /// An app the person has not opened for longer than this gets no background push at all. [C]
  /// forums 776933: "not delivered to the app at all if the user has not launched the app for a
  /// while"; the while is [assumed] 7 days (the app counts as opened at the start of the run).
  public var deliveryRequiresLaunchWithin = SimDuration.days(7)
  /// Pushes to one device within this window coalesce into one, seconds. [assumed] 0 (off).
  public var coalescingWindow = SimDuration(seconds: 0.0)
  /// How long APNs stores a push for an offline device, seconds. [A] 30 days.
  public var offlineStorage = SimDuration(seconds: 30.0 * 86_400)

  public init() {}
}

/// How edits become saves, and how imports become visible, on one device (spec §4).
public struct AppBehaviour: Equatable, Sendable {
  /// When the context saves. [A] immediate is Apple's recommendation; [HowTo].
  public var savePolicy = SavePolicyKind.immediate
  /// The debounce or interval of `savePolicy`, seconds. [assumed] 2 s.
  public var saveDelaySeconds = 2.0
  /// How imported changes reach the screen. [A] fetchedResults with automatic merging.
  public var uiRefresh = UIRefreshKind.fetchedResults
  /// The debounce of `reloadOnImportEvent`, seconds. [C] [HowTo]: ~5 s.
  public var uiReloadDebounceSeconds = 5.0
  /// From the import's store update to the view context's merge, seconds. [assumed] 0.05 s.
  public var uiMergeDelay = SimDuration(seconds: 0.05)
  /// Whether a person sees a change only while the app is in the foreground. [assumed] true.
  public var visibilityRequiresForeground = true
  /// Whether the Remote notifications background mode is on. [A] required for push.
  public var backgroundPush = true
  /// Whether saves wait while the store resets ([HowTo]'s `isResettingSync`); off loses them.
  public var resetGuard = false
  /// Whether the app removes duplicates after each import: lowest id wins. [A] [CDModel], [Rules].
  public var deduplicate = false
  /// Whether the app is suspended in the background (iOS, iPadOS, watchOS); false for an app
  /// that keeps running there (a Mac app). [A] "Extending your app's background execution time".
  public var suspendsInBackground = true
  /// From leaving the foreground to suspension, seconds. [A] 5 s: "applicationDidEnterBackground
  /// has five seconds … Shortly after that method returns, the system puts your app into the
  /// suspended state" ("Extending your app's background execution time"); WWDC22 CloudKit lounge:
  /// sync log events "immediately stop … as soon as the app goes to the background".
  public var backgroundGrace = SimDuration(seconds: 5.0)
  /// An export in progress when the app leaves the foreground runs under a background task
  /// ("Core Data creates a background task" for export, [A] "Syncing a local store to the
  /// cloud") for at most this long, seconds. [A] 30 s: the figure Apple DTS reports for a
  /// background task since iOS 13 (forums 85066, 391799).
  public var exportBackgroundTask = SimDuration(seconds: 30.0)
  /// How long a push keeps a suspended or not-running app running in the background, drawn per
  /// push launch and never above `pushRuntimeLimit`. [C] lognormal median 3.5 s, p99 6.7 s:
  /// fitted to field telemetry in which most push launches expired 2–5 s after launch (Apple
  /// developer forums thread 780956; 88 % of draws fall in 2–5 s).
  public var pushRuntime = Distribution.lognormal(median: 3.5, p99: 6.7)
  /// The documented bound of a push launch's runtime. [A] "up to 30 seconds" ("Pushing
  /// background updates to your App").
  public var pushRuntimeLimit = SimDuration(seconds: 30.0)

  public init() {}
}

/// How an app on CKSyncEngine uses it: the engine's defaults and the app's choices, each with its
/// source (`docs/sync-engine.md`).
public struct SyncEngineBehaviour: Equatable, Sendable {
  /// Records per send batch: the helper `RecordZoneChangeBatch(pendingChanges:)` stops at the
  /// maximum batch size; an app that builds its own batches may exceed the server's limit and get
  /// limitExceeded. [A] CKSyncEngine.RecordZoneChangeBatch (250); [C] sqlite-data #333 (1,360).
  public var batchRecords: Int32 = 250
  /// A push reaching a running app starts the fetch at once, without dasd's decision.
  /// [RE] `immediatePushSyncEnabled` (on for apps), UNCONFIRMED.
  public var immediatePushFetch = true
  /// The engine fetches when the app comes to the front from the background (it always fetches
  /// when its process launches). Undocumented either way: [assumed] false.
  public var fetchOnActivation = false
  /// The app calls `sendChanges` when it leaves the foreground, inside a background task of
  /// `exportBackgroundTask`'s length. [C] sqlite-data PR #167: the engine sends nothing on
  /// backgrounding by itself.
  public var sendOnResign = false
  /// From a change of the engine's state (a pending change added) to the app's writing of its
  /// serialization: a crash inside it loses the changes added since. [A] the app persists
  /// `State.Serialization`; the lag is the app's, [C] sample-cloudkit-sync-engine #5: 0 s.
  public var statePersistLag = SimDuration.zero

  public init() {}
}

/// A device's power and network at the start of a run (spec §3).
public struct DeviceConditions: Equatable, Sendable {
  public var batteryPercent = 80.0
  public var pluggedIn = false
  public var lowPowerMode = false
  public var online = true
  /// Upload bandwidth, bytes per second. [A] 16.7 MB/s: Apple's 10 GB test (export, then
  /// import) "takes about 20 minutes to process" (WWDC22 Core Data lounge), 2 × 10 GB / 1,200 s;
  /// the equal split between upload and download is [assumed].
  public var uploadBytesPerSecond = 16_700_000.0
  /// Download bandwidth, bytes per second. [A] 16.7 MB/s, as upload (split [assumed]).
  public var downloadBytesPerSecond = 16_700_000.0
  /// Battery drain while unplugged, percent per hour; 0 = the level only changes by timeline.
  /// [assumed] (no public number).
  public var drainPercentPerHour = 0.0
  /// Charging while plugged in, percent per hour. [assumed]
  public var chargePercentPerHour = 0.0
  /// Low Power Mode turns on by itself below this level (iOS offers it at 20 %); nil = never.
  public var autoLowPowerBelowPercent: Double? = nil
  /// Background pushes per hour that other apps of the device receive: they use the device-wide
  /// push budget this app shares (`push.backgroundBudgetPerHour`, `backgroundBudgetPerDay`),
  /// arriving evenly. [C] forums 776933 ("across all apps on a device"); 0 [assumed].
  public var otherAppsBackgroundPushesPerHour = 0.0
  /// Run from Xcode with a debugger attached: the push budget does not apply, which is why a
  /// developer's own tests look better than the field. [C] forums 776933.
  public var debuggerAttached = false

  public init() {}
}

/// An entity of the app's data model, reduced to what the simulation needs: field sizes, many-to-
/// many links, a to-one reference (for orphan windows) and whether large fields may become assets.
/// The scenario layer builds these from the full model description (issue 8's `model` section).
public struct EntityDescription: Equatable, Sendable {
  public var name: String
  /// Typical sizes of the entity's attributes (inherited ones first), bytes, in order.
  public var attributeBytes: [Int]
  /// Whether each attribute may move to a CKAsset (String, Binary Data, Transformable). [W] WWDC19
  public var assetEligible: [Bool]
  /// CDMR join records created with each new object (many-to-many links).
  public var manyToManyLinksPerObject: Int
  /// The entity new objects point to through a to-one relationship, if any (orphan windows).
  public var referencedEntity: Int?
  /// The CloudKit record type the entity maps to (its root entity), for display.
  public var recordType: String
  /// Whether the entity's configuration syncs; edits of a local-only entity never leave the device.
  public var syncs = true

  public init(
    name: String, attributeBytes: [Int] = [64, 64, 8, 8], manyToManyLinksPerObject: Int = 0,
    referencedEntity: Int? = nil,
    assetEligible: [Bool]? = nil, recordType: String? = nil
  ) {
    self.name = name
    self.attributeBytes = attributeBytes
    self.assetEligible = assetEligible ?? Array(repeating: true, count: attributeBytes.count)
    self.manyToManyLinksPerObject = manyToManyLinksPerObject
    self.referencedEntity = referencedEntity
    self.recordType = recordType ?? "CD_" + name
  }

  /// Number of fields, including the existence field at index 0.
  public var fieldCount: Int { attributeBytes.count + 1 }

  /// Record bytes and asset bytes of a new object: fields above `assetThreshold` move to assets,
  /// then the largest eligible fields move until the record fits `maxRecordBytes`. [W] WWDC19
  public func recordSize(overhead: Int, assetThreshold: Int, maxRecordBytes: Int) -> (record: Int64, assets: Int64) {
    var inRecord = attributeBytes.enumerated().map { index, bytes in
      assetEligible[index] && bytes > assetThreshold ? 0 : bytes
    }
    var assets = zip(attributeBytes, inRecord).reduce(0) { $0 + ($1.0 - $1.1) }
    while overhead + inRecord.reduce(0, +) > maxRecordBytes {
      guard
        let largest = inRecord.indices.filter({ assetEligible[$0] && inRecord[$0] > 0 }).max(by: {
          inRecord[$0] < inRecord[$1]
        })
      else { break }
      assets += inRecord[largest]
      inRecord[largest] = 0
    }
    return (Int64(overhead + inRecord.reduce(0, +)), Int64(assets))
  }
}
