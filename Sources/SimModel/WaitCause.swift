/// A wait the server or the network imposes before an activity may run again: the cause a
/// latency row's scheduling stage names beside the scheduler's policies (MODEL §1.3, §6).
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

  /// The name in results.
  public var name: String {
    switch self {
    case .serverThrottle: "serverThrottle"
    case .deviceThrottle: "deviceThrottle"
    case .zoneBusy: "zoneBusy"
    case .networkBackoff: "networkBackoff"
    case .quota: "quota"
    }
  }

  /// Every cause's name, in order.
  public static let names = allCases.map(\.name)
}
