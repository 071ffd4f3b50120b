import SimKernel

/// What APNs and the device hold of one device's pushes, kept inline in the device's state
/// (`DeviceState.mailbox`: a delivery reads it beside the app state). Owned by `PushService`.
struct PushMailbox {
  /// When the stored push (`storedZone`) arrived.
  var storedAt = SimTime.zero
  /// When the last push to the device was sent (for the coalescing window).
  var lastSentAt = SimTime(nanoseconds: Int64.min / 2)
  /// The zone of the push APNs stores for this offline device (newest kept), or none.
  var storedZone = ZoneID.none
  /// The zone of the push held by the device's push budget (newest kept), or none.
  var heldZone = ZoneID.none
  /// The zone of the push APNs defers while the device is under power restriction, or none.
  var deferredZone = ZoneID.none
  /// When the deferred push (`deferredZone`) arrived, to order it with the other apps' when the
  /// restriction lifts.
  var deferredAt = SimTime.zero
}
