import SimKernel

/// The ports through which the system scheduler's decisions reach the rest of the world.
///
/// dasd's decisions (`SchedulerHost+Decisions`: submission, policies, blocking, starts, finishes,
/// signals) are written against this protocol, not against `World`: it holds the scheduler's own
/// state (`scheduler`) and reads the devices, the server's retry-afters and accounts, and the
/// store's owner only through the requirements below. `World` is the one host (`World+Ports`), so
/// every call is specialised to it.
protocol SchedulerHost: DeviceReading {
  /// The scheduler's state: activities, waiting lists, retry waits, policies, run history.
  var scheduler: SystemScheduler { get set }

  // MARK: Devices: their declared conditions (read; the rest is `DeviceReading`), the app's process

  var levels: [InlineArray<4, Double>] { get }
  func storeIDs(of device: DeviceID) -> LazyMapSequence<Range<Int>, StoreID>
  func processRuns(_ device: DeviceID) -> Bool
  /// Holds a start until `device`'s suspended process wakes.
  mutating func park(_ request: ParkedRequest, device: DeviceID)
  mutating func suspendIfIdle(_ device: DeviceID, exportRunning: Bool, sim: inout Simulation<ModelEvent>)

  // MARK: The server, read only: its retry-afters and the accounts' device counts

  var server: CloudServer { get }
}
