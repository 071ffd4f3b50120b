import Foundation
import SimKernel
import SimModel

/// Runs a world's independent parts (`WorldPartitioning`), each with its own kernel, on several
/// threads, and returns what each part produced, in part order.
///
/// Parts are handed to threads in batches of consecutive parts holding at most `batchDevices`
/// devices (fewer hand-overs for a fleet of small accounts), smaller towards the end. Neither the
/// batch size nor the number of threads changes any part's result: a part sees only its own spec.
public enum PartitionedRunner {
  /// The default batch: enough devices that a hand-over costs little beside the runs.
  public static let defaultBatchDevices = 512

  /// The default number of threads: the machine's active cores.
  public static var defaultJobs: Int { ProcessInfo.processInfo.activeProcessorCount }

  /// Calls `body` with every part's index and spec, on up to `jobs` threads, and `consume` with
  /// each result in part order (one call at a time, on whichever thread finished the part that
  /// let the order advance). Results wait until the parts before them are consumed; with
  /// `waitingLimit`, a thread whose result waits among more than that many stops until it is
  /// consumed (for results that hold much, when consuming is slow).
  ///
  /// With `parts`, only those parts run (a shard of the run: `RunShard`); indices stay the whole
  /// world's.
  public static func run<Result>(
    _ spec: WorldSpec, partitioning: WorldPartitioning, parts: Range<Int>? = nil, jobs: Int,
    batchDevices: Int = defaultBatchDevices, waitingLimit: Int = .max,
    _ body: @escaping @Sendable (Int, WorldSpec) -> Result, consume: @escaping @Sendable (Int, Result) -> Void
  ) {
    if partitioning.count == 1 {
      consume(0, body(0, spec))
      return
    }
    let range = parts ?? 0..<partitioning.count
    guard !range.isEmpty else { return }
    let batches = batchStarts(partitioning, parts: range, batchDevices: batchDevices, jobs: jobs)
    let first = range.lowerBound
    let order = InOrder<Result>(limit: waitingLimit) { index, result in consume(first + index, result) }
    WorkerPool(jobs: max(1, jobs)).run(count: batches.count - 1) { batch in
      for part in batches[batch]..<batches[batch + 1] {
        order.finished(part - first, body(part, partitioning.spec(ofPart: part, in: spec)))
      }
    }
  }

  /// The first part of every batch, then the part count.
  ///
  /// Batches shrink as the parts left shrink (guided scheduling): each holds at most
  /// `batchDevices` devices and about a `2 × jobs`-th of the devices not yet handed out, so the
  /// threads finish within a small batch of each other. With four equal batches for two threads,
  /// one thread ran alone for the last fifth of a 2,000-device fleet's run (measured).
  public static func batchStarts(
    _ partitioning: WorldPartitioning, parts: Range<Int>? = nil, batchDevices: Int, jobs: Int
  ) -> [Int] {
    let range = parts ?? 0..<partitioning.count
    var remaining = 0
    for part in range { remaining += partitioning.devices(ofPart: part).count }
    let target = { (remaining: Int) in max(1, min(batchDevices, remaining / (2 * max(1, jobs)))) }
    var starts = [range.lowerBound]
    var devices = 0
    var size = target(remaining)
    for part in range {
      devices += partitioning.devices(ofPart: part).count
      if devices >= size {
        starts.append(part + 1)
        remaining -= devices
        devices = 0
        size = target(remaining)
      }
    }
    if starts.last != range.upperBound { starts.append(range.upperBound) }
    return starts
  }
}
