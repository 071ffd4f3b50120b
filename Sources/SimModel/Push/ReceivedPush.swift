/// A push the app received: its zone, and whether it woke the app's process in the background
/// for the push's runtime (`launched`: from not running). World runs the app for it and hands
/// it to the client (`World.pushReceived`).
struct ReceivedPush {
  var zone: ZoneID
  var wokeApp: Bool
  var launched: Bool
}
