import SimKernel

/// The client's own wait after a throttled answer (`cloud.throttleBackoffCap`): the stated
/// retry-after, doubled for each consecutive throttled answer before it, up to the cap (never
/// below the retry-after itself). Without a cap it is the retry-after. [C] Mindwtr #948,
/// TablePro #2975; Apple documents only the retry-after.
enum ThrottleBackoff {
  static func retryAt(after retryAfter: SimDuration, attempt: Int, cap: SimDuration?, now: SimTime) -> SimTime {
    guard let cap, attempt > 1 else { return now + retryAfter }
    let doubled = retryAfter.seconds * Double(1 << min(attempt - 1, 30))
    return now + SimDuration(seconds: max(retryAfter.seconds, min(doubled, cap.seconds)))
  }
}
