import SimKernel
import SimMetrics
import SimModel

/// One independent part of a run (`WorldPartitioning`): what it produced, and how its ids map to
/// the whole world's.
///
/// Devices, stores and zones keep the whole world's ids in every result file. Writes and
/// activities are numbered part after part: a part's first write follows the last of the parts
/// before it (a world of one part keeps its own numbering).
public struct RunPart: @unchecked Sendable {
  public var outcome: RunOutcome
  /// What the part adds to the summary (let go once added to the run's).
  public var tally: SummaryTally?
  /// The part's trajectory folded with its observations.
  public var fingerprint: TrajectoryFingerprint
  /// The part's recorder, kept only when a result file needs its rows (unsynchronised: read it
  /// after the run, from one thread).
  public var recorder: MetricsRecorder?
  /// The whole world's index of each of the part's devices, stores and zones, by local index.
  public var devices: [Int32]
  public var stores: [Int32]
  public var zones: [Int32]
  /// Writes and activities of the parts before this one.
  public var writeOffset: Int32 = 0
  public var activityOffset: Int32 = 0
  /// The part's writes and activities.
  var writeCount: Int32
  var activityCount: Int32
  /// The part's cause totals, when its rows were written as it went and its recorder let go.
  var causeTotals: [(name: String, nanoseconds: Int128)]? = nil

  /// The whole world's id of a local device, store, zone, write or activity.
  func device(_ local: DeviceID) -> DeviceID { DeviceID(Int(devices[local.index])) }
  func store(_ local: StoreID) -> StoreID { StoreID(Int(stores[local.index])) }
  func zone(_ local: ZoneID) -> ZoneID { local.exists ? ZoneID(Int(zones[local.index])) : local }
  func write(_ local: WriteID) -> WriteID { local == .none ? local : WriteID(Int(local.raw + writeOffset)) }
  func activity(_ local: Int) -> Int { local + Int(activityOffset) }

  /// A latency row of the part with the whole world's ids.
  func global(_ local: LatencyRow) -> LatencyRow {
    var row = local
    row.write = write(local.write)
    row.zone = zone(local.zone)
    row.writer = device(local.writer)
    row.observer = device(local.observer)
    return row
  }
}
