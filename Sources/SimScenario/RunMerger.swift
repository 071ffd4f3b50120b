import SimKernel
import SimMetrics
import SimModel

/// Adds a run's parts up, in part order: their tallies, fingerprints, outcomes and id offsets.
final class RunMerger: @unchecked Sendable {
  private(set) var tally: SummaryTally?
  /// The parts' cause totals, for parts that let their recorders go.
  private(set) var causes: CauseTotalsFold?
  private var outcomes = OutcomeTotal()
  private(set) var parts: [RunPart] = []
  private(set) var fingerprints: [TrajectoryFingerprint] = []
  private var writeOffset: Int32 = 0
  private var activityOffset: Int32 = 0
  /// The writes and activities of the parts added so far.
  var writeCount: Int32 { writeOffset }
  var activityCount: Int32 { activityOffset }
  let keepsParts: Bool

  /// The whole run's outcome (nil before the first part).
  var outcome: RunOutcome? { outcomes.outcome }

  init(partCount: Int, keepsParts: Bool) {
    self.keepsParts = keepsParts
    fingerprints.reserveCapacity(partCount)
  }

  /// A merger that goes on from `progress`: the parts it counts are added already.
  /// - Precondition: `keepsParts` is false (the finished parts' recorders are gone).
  init(resuming progress: RunProgress, partCount: Int) {
    keepsParts = false
    fingerprints.reserveCapacity(partCount)
    fingerprints += progress.fingerprints
    tally = progress.tally
    causes = progress.causes.map { CauseTotalsFold($0) }
    outcomes = OutcomeTotal(resuming: progress.outcome, trajectories: progress.trajectories)
    writeOffset = progress.writes
    activityOffset = progress.activities
  }

  /// What the parts added so far come to, `partsDone` of the run's `partsInRun` (of a world of
  /// `partsInWorld`); nil before the first.
  func progress(partsDone: Int, partsInRun: Int, partsInWorld: Int) -> RunProgress? {
    guard let tally, let outcome = outcomes.outcome else { return nil }
    return RunProgress(
      partsDone: partsDone, partsInRun: partsInRun, partsInWorld: partsInWorld, writes: writeOffset,
      activities: activityOffset, fingerprints: fingerprints, outcome: outcome, trajectories: outcomes.trajectories,
      causes: causes?.totals, tally: tally)
  }

  /// Adds the next part (parts come in part order) and returns it with its id offsets. Its tally
  /// is let go once added: it holds every latency of the part.
  @discardableResult
  func add(_ part: RunPart) -> RunPart {
    var part = part
    part.writeOffset = writeOffset
    part.activityOffset = activityOffset
    writeOffset += part.writeCount
    activityOffset += part.activityCount
    fingerprints.append(part.fingerprint)
    if tally == nil { tally = part.tally } else { tally!.add(part.tally!) }
    part.tally = nil
    outcomes.add(part.outcome)
    if let totals = part.causeTotals {
      if causes == nil { causes = CauseTotalsFold() }
      causes!.add(totals)
      part.causeTotals = nil
    }
    if keepsParts { parts.append(part) }
    return part
  }
}

/// The outcome of a run of several parts, added up in part order: events summed, converged if
/// every part converged, stopped by the first part that stopped early (at the earliest end), the
/// largest part's memory, the trajectories' fingerprints folded.
public struct OutcomeTotal: Sendable {
  public private(set) var outcome: RunOutcome?
  public private(set) var trajectories = FingerprintFold()

  public init() {}

  /// The total of parts added before (`RunProgress`), to add more to.
  init(resuming outcome: RunOutcome, trajectories: FingerprintFold) {
    self.outcome = outcome
    self.trajectories = trajectories
  }

  public mutating func add(_ part: RunOutcome) {
    trajectories.add(part.fingerprint)
    guard var total = outcome else {
      outcome = part
      return
    }
    total.fingerprint = trajectories.value
    total.processedEvents += part.processedEvents
    total.converged = total.converged && part.converged
    if case .reachedEventLimit = part.stopReason, !total.stopReason.isEventLimit { total.stopReason = part.stopReason }
    total.endTime = min(total.endTime, part.endTime)
    if part.memory.recordBytes > total.memory.recordBytes { total.memory = part.memory }
    outcome = total
  }
}

/// Parts' fingerprints folded in part order, one at a time; one part's is its own.
public struct FingerprintFold: Sendable {
  private var folded = TrajectoryFingerprint()
  private var first = TrajectoryFingerprint()
  private var count = 0

  public init() {}

  /// The fold's whole state, to write down and go on from (`RunProgress`).
  public var state: (folded: UInt64, first: UInt64, count: Int) { (folded.value, first.value, count) }

  public init(state: (folded: UInt64, first: UInt64, count: Int)) {
    folded = TrajectoryFingerprint(value: state.folded)
    first = TrajectoryFingerprint(value: state.first)
    count = state.count
  }

  public mutating func add(_ part: TrajectoryFingerprint) {
    if count == 0 { first = part }
    folded.add(time: Int64(bitPattern: part.value), kind: UInt32(truncatingIfNeeded: count), entity: 0)
    count += 1
  }

  public var value: TrajectoryFingerprint { count == 1 ? first : folded }
}
