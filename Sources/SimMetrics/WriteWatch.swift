import SimKernel
import SimModel

/// A write a scenario names (`watch`, or a timeline edit's `"watch"`), whose arrival becomes
/// metrics of its own: `watch.<name>.latency` and the rest (`RunSummary.watchMetrics`), carried
/// by `sweep`, `compare` and `report` like any other.
///
/// A write is picked by its device and time, not by its number: a write's number is its place in
/// the run's order of edits, which a swept parameter reorders, so "write 17" is a different edit
/// at each point; a timeline edit at a time is the same edit at every point.
public struct WriteWatch: Sendable, Equatable {
  /// Letters, digits, '-' and '_' (it is part of a column name).
  public var name: String
  /// The device, as the recorder numbers devices (a part's own numbering in a partitioned run);
  /// −1 when the device is in another part.
  public var device: Int
  /// The first write the device makes at or after this time; nil with `last`.
  public var at: SimDuration?
  /// The device's last write of the run.
  public var last: Bool

  public init(name: String, device: Int, at: SimDuration?, last: Bool) {
    (self.name, self.device, self.at, self.last) = (name, device, at, last)
  }

  /// This watch in a part whose devices are `devices` (the world's numbers, ascending): its
  /// device renumbered to its place there, or −1 when the part does not hold it.
  public func inPart(devices: ArraySlice<Int32>) -> WriteWatch {
    var watch = self
    let position = devices.firstIndex(of: Int32(device)).map { $0 - devices.startIndex }
    watch.device = position ?? -1
    return watch
  }

  /// What a run showed of a watched write.
  public struct Arrival: Sendable, Equatable {
    public var name: String
    /// When the write was made; nil when the device made no such write (its metrics are empty).
    public var editedAt: SimTime?
    /// Its rows: the other devices with access to its store.
    public var rows = 0
    /// How many of them showed it by the end.
    public var visibleOn = 0
    /// From the edit to the first and to the last of those showings.
    public var first: SimDuration?
    public var slowest: SimDuration?

    public init(name: String) { self.name = name }

    /// Until the write was visible on every other device; nil unless all showed it.
    public var latency: SimDuration? { rows > 0 && visibleOn == rows ? slowest : nil }

    /// The part's arrival that found the write (a device is in one part only).
    mutating func add(_ other: Arrival) {
      if editedAt == nil && other.editedAt != nil { self = other }
    }
  }
}

extension MetricsRecorder {
  /// What the run showed of each of `watches`, in their order.
  public func arrivals(of watches: [WriteWatch]) -> [WriteWatch.Arrival] {
    let picked = watches.map { writeIndex(of: $0) }
    // What building rows reads, taken out once for every watch that found its write.
    guard picked.contains(where: { $0 != nil }) else { return watches.map { WriteWatch.Arrival(name: $0.name) } }
    var source = rowSource()
    let ids = writeIDs
    return zip(watches, picked).map { watch, index in
      var arrival = WriteWatch.Arrival(name: watch.name)
      guard let index else { return arrival }
      arrival.editedAt = writes[index].editedAt
      for row in rows(ofWriteAt: index, id: WriteID(Int(ids[index])), source: &source) {
        arrival.rows += 1
        guard let latency = row.latency, row.outcome == .visible else { continue }
        arrival.visibleOn += 1
        arrival.first = min(arrival.first ?? latency, latency)
        arrival.slowest = max(arrival.slowest ?? latency, latency)
      }
      return arrival
    }
  }

  /// The index in `writes` of the write `watch` picks, or nil: writes are kept in edit order.
  func writeIndex(of watch: WriteWatch) -> Int? {
    guard watch.device >= 0 else { return nil }
    let made = { (write: WriteRecord) in
      self.storeDevice[write.store.index].index == watch.device && self.storeZone[write.store.index] >= 0
    }
    if watch.last { return writes.lastIndex(where: made) }
    let from = SimTime.zero + (watch.at ?? .zero)
    return writes.firstIndex { made($0) && $0.editedAt >= from }
  }
}
