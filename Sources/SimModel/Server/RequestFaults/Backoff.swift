import SimKernel

/// The doubling back-offs of the request faults: a delay doubled per failed attempt up to a cap
/// (network failures and zoneBusy [A] CKError.h; a client's own back-off on throttles,
/// `cloud.throttleBackoffCap` [C] Mindwtr #948, TablePro #2975).
enum Backoff {
  /// `base` seconds doubled `doublings` times (at most 30), capped at `cap` seconds.
  static func doubled(_ base: Double, doublings: Int, cap: Double) -> Double {
    min(base * Double(1 << min(doublings, 30)), cap)
  }

  /// The client's own wait after a throttled answer: the stated retry-after, doubled for each
  /// consecutive throttled answer before it, up to the cap (never below the retry-after itself).
  /// Without a cap it is the retry-after, as Apple documents.
  static func throttleRetryAt(after retryAfter: SimDuration, attempt: Int, cap: SimDuration?, now: SimTime) -> SimTime {
    guard let cap, attempt > 1 else { return now + retryAfter }
    let wait = doubled(retryAfter.seconds, doublings: attempt - 1, cap: cap.seconds)
    return now + SimDuration(seconds: max(retryAfter.seconds, wait))
  }
}
