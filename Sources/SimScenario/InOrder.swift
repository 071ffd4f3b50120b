import Foundation

/// Results handed on in index order as they arrive in any order.
///
/// When consuming is slower than producing (a fleet's latency.csv is written as parts finish), a
/// thread whose result is not yet consumed waits while more than `limit` results wait, so that
/// memory holds a bounded number of finished parts. The thread whose result is next never waits
/// (its result is consumed at once), so the order always advances.
final class InOrder<Result>: @unchecked Sendable {
  private let condition = NSCondition()
  private var next = 0
  private var waiting: [Int: Result] = [:]  // lookup only: results go out by `next`
  private let consume: @Sendable (Int, Result) -> Void
  private let limit: Int

  init(limit: Int, _ consume: @escaping @Sendable (Int, Result) -> Void) {
    self.limit = limit
    self.consume = consume
  }

  func finished(_ index: Int, _ result: Result) {
    condition.lock()
    defer { condition.unlock() }
    waiting[index] = result
    var advanced = false
    while let ready = waiting.removeValue(forKey: next) {
      consume(next, ready)
      next += 1
      advanced = true
    }
    if advanced { condition.broadcast() }
    while waiting.count > limit && index >= next { condition.wait() }
  }
}
