import SimKernel

/// The push service (APNs) as a device sees it: the background wakes it has delivered, against
/// which the device's push budget is counted (spec §7).
struct PushService {
  /// Per device: the start times of background push wakes.
  var wakes: [[SimTime]] = []
}
