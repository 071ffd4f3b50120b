import Foundation

/// Results written by index from several threads (a sweep's runs, a tally's shares).
public final class ResultStore<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [Value?]
  private var finishedCount = 0

  /// How many results have been stored.
  public var finished: Int {
    lock.lock()
    defer { lock.unlock() }
    return finishedCount
  }

  public init(count: Int) { slots = Array(repeating: nil, count: count) }

  public func set(_ index: Int, _ result: Value) {
    lock.lock()
    slots[index] = result
    finishedCount += 1
    lock.unlock()
  }

  public func results() -> [Value] { slots.compactMap { $0 } }
}
