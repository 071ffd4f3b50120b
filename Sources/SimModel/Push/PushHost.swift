import SimKernel

/// The ports through which the push service's deliveries reach the rest of the world.
///
/// The delivery of silent pushes (`PushHost+Delivery`: fan-out, APNs' storing, holding and
/// deferring, the wake budget) is written against this protocol, not against `World`: it holds
/// the push service's state (`push`), reads the zones' stores from the server and the devices,
/// and wakes the app only through the requirements below. `World` is the one host (`World+Ports`).
protocol PushHost: DeviceReading {
  /// The push service's state: wakes against the device-wide budget, other apps' pushes.
  var push: PushService { get set }
  /// The conditions the scenario gives `device` (its push budget's: a debugger, other apps'
  /// pushes).
  func deviceConditions(_ device: DeviceID) -> DeviceConditions
  /// Moves the app to `state` (a push launches or resumes it in the background).
  mutating func setAppState(_ device: DeviceID, _ state: AppState, at now: SimTime)
  /// The server, read only: which stores have access to a zone.
  var server: CloudServer { get }
}
