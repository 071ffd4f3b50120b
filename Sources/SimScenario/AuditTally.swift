import Foundation

/// The audits of a run's parts, added from the threads that run them.
final class AuditTally: @unchecked Sendable {
  private let lock = NSLock()
  private var checks = 0
  private var failures: [(part: Int, text: String)] = []

  func add(_ audit: (checks: Int, failures: [String]), part: Int, of count: Int) {
    lock.lock()
    defer { lock.unlock() }
    checks += audit.checks
    failures += audit.failures.map { (part, count > 1 ? "part \(part): " + $0 : $0) }
  }

  /// The checks and failures, in part order (the threads finish in any order).
  var result: (checks: Int, failures: [String]) {
    lock.lock()
    defer { lock.unlock() }
    return (checks, failures.sorted { $0.part < $1.part }.prefix(20).map(\.text))
  }
}
