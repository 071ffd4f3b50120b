import Foundation
import SimKernel
import SimModel

/// Runs a world's independent parts (`WorldPartitioning`), each with its own kernel, on several
/// threads, and returns what each part produced, in part order.
///
/// Parts are handed to threads in batches of consecutive parts holding about `batchDevices`
/// devices (fewer hand-overs for a fleet of small accounts). Neither the batch size nor the
/// number of threads changes any part's result: a part sees only its own spec.
public enum PartitionedRunner {
  /// The default batch: enough devices that a hand-over costs little beside the runs.
  public static let defaultBatchDevices = 512

  /// The default number of threads: the machine's active cores.
  public static var defaultJobs: Int { ProcessInfo.processInfo.activeProcessorCount }

  /// Calls `body` with every part's index and spec and returns the results in part order.
  /// `partDone`, when given, is called (under a lock, from any thread) with the number of parts
  /// finished so far.
  public static func run<Result>(
    _ spec: WorldSpec, partitioning: WorldPartitioning, jobs: Int, batchDevices: Int = defaultBatchDevices,
    partDone: (@Sendable (Int) -> Void)? = nil, _ body: @escaping @Sendable (Int, WorldSpec) -> Result
  ) -> [Result] {
    if partitioning.count == 1 {
      let result = body(0, spec)
      partDone?(1)
      return [result]
    }
    let batches = batchStarts(partitioning, batchDevices: batchDevices)
    let store = ResultStore<Result>(count: partitioning.count)
    let progress = ProgressCounter(partDone)
    WorkerPool(jobs: max(1, jobs)).run(count: batches.count - 1) { batch in
      for part in batches[batch]..<batches[batch + 1] {
        store.set(part, body(part, partitioning.spec(ofPart: part, in: spec)))
        progress.increment()
      }
    }
    return store.results()
  }

  /// The first part of every batch, then the part count.
  static func batchStarts(_ partitioning: WorldPartitioning, batchDevices: Int) -> [Int] {
    var starts = [0]
    var devices = 0
    for part in 0..<partitioning.count {
      devices += partitioning.devices(ofPart: part).count
      if devices >= max(1, batchDevices) {
        starts.append(part + 1)
        devices = 0
      }
    }
    if starts.last != partitioning.count { starts.append(partitioning.count) }
    return starts
  }
}

/// Counts finished parts and reports each count, one report at a time.
final class ProgressCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var done = 0
  private let report: (@Sendable (Int) -> Void)?

  init(_ report: (@Sendable (Int) -> Void)?) { self.report = report }

  func increment() {
    lock.lock()
    done += 1
    report?(done)
    lock.unlock()
  }
}
