/// What a component's host gives it of the devices, read only, and where it reports: the
/// devices' state and traits, which device owns a store, and the observation sink.
///
/// The scheduler's, the push service's and the clients' hosts (`SchedulerHost`, `PushHost`,
/// `ClientHost`) refine it, so these requirements are declared once, below the components that
/// read them.
protocol DeviceReading {
  /// Where what happens is reported.
  var sink: any ObservationSink { get }
  /// Hands `body` the sink, borrowed. A component reports through this, not `sink`: read through
  /// a protocol's getter the reference is copied, a retain and a release around every report
  /// (about 4 % of a fleet's instructions, issue 75); borrowed, a report is one call.
  func report(_ body: (borrowing any ObservationSink) -> Void)
  var devices: Column<DeviceState> { get }
  /// The devices' traits, shared by a group's members (`traitsIndex`).
  var deviceTraits: [DeviceTraits] { get }
  /// Where `device`'s traits are in `deviceTraits`.
  func traitsIndex(of device: DeviceID) -> Int
  /// The device a store belongs to.
  func owner(of store: StoreID) -> DeviceID
}

extension DeviceReading {
  /// A host with nothing to gain from lending the sink (a test's) reads it.
  func report(_ body: (borrowing any ObservationSink) -> Void) { body(sink) }
}
