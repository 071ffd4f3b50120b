import Foundation
import SimMetrics

/// The tables of recorders whose parts are done (`RecorderTables`), waiting for the next parts'
/// recorders: at most one set per thread is ever waiting, as each thread takes one before its
/// part and gives it back after.
final class RecorderTablePool: @unchecked Sendable {
  private let lock = NSLock()
  private var waiting: [RecorderTables] = []

  /// A waiting set of tables, or nil when none waits.
  func take() -> RecorderTables? {
    lock.lock()
    defer { lock.unlock() }
    return waiting.popLast()
  }

  /// Keeps `tables` for a later part.
  func give(_ tables: RecorderTables) {
    lock.lock()
    defer { lock.unlock() }
    waiting.append(tables)
  }
}
