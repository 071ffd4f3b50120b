/// A wait the server, the network or the app's suspension imposes before an activity may go on:
/// the cause a latency row's stages name beside the scheduler's policies (spec §1.3, §3, §6).
///
/// An export or import that gets such an answer ends and releases its activity; the retry is a new
/// activity that may not start before the stated time (a retry-after, a back-off) and that waits,
/// blocked by this cause, until then. In results a cause sits after the scheduler's policies:
/// `exportBlocked.<cause>`, `importBlocked.<cause>` and `blocked.<cause>.*`.
public enum WaitCause: UInt8, Sendable, CaseIterable {
  /// The container's throttle: serviceUnavailable with a retry-after. [A] TN3162
  case serverThrottle
  /// The device's own request rate: requestRateLimited with a retry-after. [A] CKError
  case deviceThrottle
  /// zoneBusy, retried after a back-off that doubles. [A] CKError
  case zoneBusy
  /// A transient network failure, retried at once, then with exponential back-off. [A] CKError.h
  case networkBackoff
  /// The account's iCloud quota was full: the export waits until the quota grows. [A] CKError
  case quota
  /// The app's process was suspended (or not running): nothing starts and no next request is
  /// sent until something wakes it (a launch, an activation, a push). [A] WWDC22 CloudKit
  /// lounge: "no forward progress will be made until something wakes the process up".
  case suspended
  /// The account was temporarily unavailable: the store asks for nothing until the stated time
  /// (`ClientReaction.stall`). [A] CKError accountTemporarilyUnavailable (36): "Don't delete any
  /// cached data and don't enqueue any additional CloudKit operations"
  case accountUnavailable

  /// The name in results.
  public var name: String {
    switch self {
    case .serverThrottle: "serverThrottle"
    case .deviceThrottle: "deviceThrottle"
    case .zoneBusy: "zoneBusy"
    case .networkBackoff: "networkBackoff"
    case .quota: "quota"
    case .suspended: "suspended"
    case .accountUnavailable: "accountUnavailable"
    }
  }

  /// Every cause's name, in order.
  public static let names = allCases.map(\.name)

  /// The causes every run's results have columns for. A cause added later is reported only in
  /// runs whose faults can raise it (`WorldSpec.reportedCauses`), so adding it, off by default,
  /// changes no committed result; it is added last, so that a cause's place among the reported
  /// ones is always its raw value.
  public static let alwaysReported: [WaitCause] = [
    .serverThrottle, .deviceThrottle, .zoneBusy, .networkBackoff, .quota, .suspended,
  ]

  /// The causes reported when `raised` may be raised: those always reported, and every later one
  /// up to the last raised (a prefix of `allCases`, so places stay raw values).
  public static func reported(raising raised: [WaitCause]) -> [WaitCause] {
    let last = max(alwaysReported.count - 1, raised.map { Int($0.rawValue) }.max() ?? 0)
    return Array(allCases.prefix(last + 1))
  }
}
