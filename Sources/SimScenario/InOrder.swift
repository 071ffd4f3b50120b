import Foundation

/// Results handed on in index order as they arrive in any order.
///
/// One thread at a time consumes (the one whose result let the order advance), outside the lock:
/// the others only leave their results and go on running parts. Consuming under the lock made
/// a thread that finished a part wait while another consumed a whole batch of results that had
/// waited for it (a tenth of a small fleet's run on two cores).
///
/// When consuming is slower than producing (a fleet's latency.csv is written as parts finish), a
/// thread whose result is not yet consumed waits while more than `limit` results wait, so that
/// memory holds a bounded number of finished parts. The thread whose result is next never waits
/// (its result is consumed at once), so the order always advances.
final class InOrder<Result>: @unchecked Sendable {
  private let condition = NSCondition()
  /// The next index to take out for consuming.
  private var next = 0
  private var waiting: [Int: Result] = [:]  // lookup only: results go out by `next`
  /// Whether a thread is consuming (only one does at a time, so the order holds).
  private var consuming = false
  private let consume: @Sendable (Int, Result) -> Void
  private let limit: Int

  init(limit: Int, _ consume: @escaping @Sendable (Int, Result) -> Void) {
    self.limit = limit
    self.consume = consume
  }

  func finished(_ index: Int, _ result: Result) {
    condition.lock()
    waiting[index] = result
    if !consuming && waiting[next] != nil {
      consuming = true
      while true {
        var ready: [(Int, Result)] = []
        while let result = waiting.removeValue(forKey: next) {
          ready.append((next, result))
          next += 1
        }
        if ready.isEmpty { break }
        condition.broadcast()
        condition.unlock()
        for (index, result) in ready { consume(index, result) }
        condition.lock()
      }
      consuming = false
    }
    while waiting.count > limit && index >= next { condition.wait() }
    condition.unlock()
  }
}
