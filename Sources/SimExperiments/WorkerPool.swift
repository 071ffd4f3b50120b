import Foundation

/// A fixed number of threads that take work items by index until none are left.
///
/// Each item is independent (one deterministic run), so the order in which threads take items
/// changes nothing in the results, which are stored by index.
final class WorkerPool: @unchecked Sendable {
  let jobs: Int
  private let lock = NSLock()
  private var next = 0

  init(jobs: Int) { self.jobs = jobs }

  func run(count: Int, _ work: @escaping @Sendable (Int) -> Void) {
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

/// Results written by index from several threads.
final class ResultStore<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [Value?]
  private var finishedCount = 0

  /// How many results have been stored.
  var finished: Int {
    lock.lock()
    defer { lock.unlock() }
    return finishedCount
  }

  init(count: Int) { slots = Array(repeating: nil, count: count) }

  func set(_ index: Int, _ result: Value) {
    lock.lock()
    slots[index] = result
    finishedCount += 1
    lock.unlock()
  }

  func results() -> [Value] { slots.compactMap { $0 } }
}
