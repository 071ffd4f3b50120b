import SimKernel

/// What the people using the devices do, expanded from the scenario: periodic workloads and
/// sessions with how far each has been scheduled, and the timeline's actions.
struct Agenda {
  /// Per device, for periodic workloads and sessions: how many arrivals have been scheduled.
  var periodicEdits: [Int32] = []
  var periodicSessions: [Int32] = []
  /// Expanded timeline: one action per device, with a progress counter for bulk inserts and
  /// deletes (and repeating nudges).
  var actions: [(at: SimDuration, device: DeviceID, action: TimelineAction.Action, storeIndex: Int?)] = []
  var bulkProgress: [Int32] = []
  /// Per action, for a bulk delete saved object by object: the object id its next step looks
  /// from (objects are deleted first created first), and how many steps it takes.
  var bulkCursor: [Int32] = []
  var bulkSteps: [Int32] = []
}
