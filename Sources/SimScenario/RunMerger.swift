import SimKernel
import SimMetrics
import SimModel

/// Adds a run's parts up, in part order: their tallies, fingerprints, outcomes and id offsets.
final class RunMerger: @unchecked Sendable {
  private(set) var tally: SummaryTally?
  private(set) var outcome: RunOutcome?
  private(set) var parts: [RunPart] = []
  private(set) var fingerprints: [TrajectoryFingerprint] = []
  private var trajectories = FingerprintFold()
  private var writeOffset: Int32 = 0
  private var activityOffset: Int32 = 0
  let keepsParts: Bool

  init(partCount: Int, keepsParts: Bool) {
    self.keepsParts = keepsParts
    fingerprints.reserveCapacity(partCount)
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
    trajectories.add(part.outcome.fingerprint)
    if tally == nil { tally = part.tally } else { tally!.add(part.tally!) }
    part.tally = nil
    add(part.outcome)
    if keepsParts { parts.append(part) }
    return part
  }

  /// The outcome of a run of several parts: events summed, converged if every part converged,
  /// stopped by the first part that stopped early (at the earliest end), the largest part's
  /// memory, the trajectories' fingerprints folded.
  private func add(_ other: RunOutcome) {
    guard var merged = outcome else {
      outcome = other
      return
    }
    merged.fingerprint = trajectories.value
    merged.processedEvents += other.processedEvents
    merged.converged = merged.converged && other.converged
    if case .reachedEventLimit = other.stopReason, !merged.stopReason.isEventLimit {
      merged.stopReason = other.stopReason
    }
    merged.endTime = min(merged.endTime, other.endTime)
    if other.memory.recordBytes > merged.memory.recordBytes { merged.memory = other.memory }
    outcome = merged
  }
}

/// Parts' fingerprints folded in part order, one at a time; one part's is its own.
public struct FingerprintFold: Sendable {
  private var folded = TrajectoryFingerprint()
  private var first = TrajectoryFingerprint()
  private var count = 0

  public init() {}

  public mutating func add(_ part: TrajectoryFingerprint) {
    if count == 0 { first = part }
    folded.add(time: Int64(bitPattern: part.value), kind: UInt32(truncatingIfNeeded: count), entity: 0)
    count += 1
  }

  public var value: TrajectoryFingerprint { count == 1 ? first : folded }
}
