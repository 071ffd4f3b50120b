/// What a component's host gives it of the devices, read only, and where it reports: the
/// devices' state and traits, which device owns a store, and the observation sink.
///
/// The scheduler's, the push service's and the clients' hosts (`SchedulerHost`, `PushHost`,
/// `ClientHost`) refine it, so these requirements are declared once, below the components that
/// read them.
protocol DeviceReading {
  /// Where what happens is reported.
  var sink: any ObservationSink { get }
  var devices: Column<DeviceState> { get }
  /// The devices' traits, shared by a group's members (`traitsIndex`).
  var deviceTraits: [DeviceTraits] { get }
  /// Where `device`'s traits are in `deviceTraits`.
  func traitsIndex(of device: DeviceID) -> Int
  /// The device a store belongs to.
  func owner(of store: StoreID) -> DeviceID
}
