import SimKernel

/// A request a suspended app could not send, or an activity it could not start: it waits for the
/// process to wake (spec §3 background execution).
struct ParkedRequest {
  /// The event that completes the request (or starts the activity).
  var completion: ModelEvent
  var activity: ActivityID
  var duration: SimDuration
  var notBefore: SimTime
  /// Since when it waits.
  var since: SimTime
  /// Whether it is the activity's start rather than a request.
  var isStart: Bool
}
