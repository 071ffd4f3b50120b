import Foundation

/// A fixed number of threads that take work items by index until none are left.
///
/// Each item is independent (one deterministic run), so the order in which threads take items
/// changes nothing in the results, which are stored by index.
public final class WorkerPool: @unchecked Sendable {
  public let jobs: Int
  private let lock = NSLock()
  private var next = 0

  public init(jobs: Int) { self.jobs = jobs }

  /// Calls `work` with every index in `0..<count`, on up to `jobs` threads; returns when all are done.
  public func run(count: Int, _ work: @escaping @Sendable (Int) -> Void) {
    next = 0
    let group = DispatchGroup()
    for _ in 0..<min(jobs, max(count, 1)) {
      let thread = Thread { [self] in
        while let index = take(count) { work(index) }
        group.leave()
      }
      thread.stackSize = 8 << 20
      group.enter()
      thread.start()
    }
    group.wait()
  }

  private func take(_ count: Int) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    guard next < count else { return nil }
    next += 1
    return next - 1
  }
}
