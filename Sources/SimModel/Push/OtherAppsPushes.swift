import SimKernel

/// The background pushes of a device's other apps (`otherAppsBackgroundPushesPerHour`), under the
/// rules this app's pushes follow: APNs keeps the newest for an offline device and defers it
/// while the device saves power, and every delivered one spends the device-wide budget; one over
/// the budget is held, as this app's is, until its app is opened (never here: other apps'
/// launches are not simulated). The other apps count as one app for what APNs keeps [assumed].
/// [A] APNs ("Sending notification requests to APNs": one stored notification per app; priority 5
/// "delivered at a time that conserves power"); [C] forums 776933 (the budget across all apps).
///
/// Their pushes arrive on a clock and are played lazily: up to now, under the device's state since
/// the last time they were played, which the world guarantees by playing them before each change
/// of the state (`PushService.playOtherApps`).
struct OtherAppsPushes {
  /// The next push, on the clock.
  var nextAt: SimTime
  /// When APNs received the push it keeps for the offline device, if any.
  var storedAt: SimTime?
  /// When APNs received the push it defers while the device saves power, if any.
  var deferredAt: SimTime?
  /// A released push admitted after this app's push released with it (received later), and the
  /// time it arrives.
  var admitAfterOwnAt: SimTime?
}
