import SimKernel
import SimMetrics
import SimModel

/// What a run of a scenario will cost, worked out before it runs: writes, (write, observer)
/// rows, records the stores hold, events, peak memory and the bytes of the files it writes.
///
/// Memory is dominated by the rows' bookkeeping (each observer's imports and visibility), the
/// records every store holds, and the activities; the constants are fitted to measured peak RSS
/// (`docs/limits.md`): within a factor of two of it on the library and on fleets of 100–2,000
/// devices in one account. `validate`, `run` and `sweep` refuse a scenario whose estimate is over a
/// limit, with the estimate, unless `--accept-large` is given.
public struct RunEstimate: Sendable, Equatable {
  public var writes: Double
  public var rows: Double
  /// The rows of public-database writes, which readers fetch at polls.
  public var polledRows: Double = 0
  public var heldRecords: Double
  public var events: Double
  public var memoryBytes: Double
  public var outputBytes: Double
  /// Bytes of temporary files: a public-database reader's page log past
  /// `ObserverLog.defaultSpillAfterBytes` goes to one (`SpillFile`) until the run ends. They count
  /// against the files' limit with the outputs, since they share the disk for the run.
  public var temporaryBytes: Double = 0
  /// Independent parts (`WorldPartitioning`), and the events of the busiest: the event limit
  /// holds per part, since each part is its own run.
  public var parts = 1
  public var largestPartEvents: Double = 0
  /// Seconds of one core's time the run takes at most: its events at the slowest rate measured,
  /// what a public-database author's writes cost beyond their events, and its files' bytes
  /// (`Cost.secondsPerEvent`, `Cost.secondsPerReplayedWrite`, `Cost.secondsPerOutputByte`). In
  /// all parts together; `largestPartSeconds` is the busiest part's, which the time limit holds.
  public var seconds: Double = 0
  public var largestPartSeconds: Double = 0
  /// The share of `seconds` that writes the files.
  public var fileSeconds: Double = 0
  /// Whether the run writes `trace.csv` (`--trace`).
  public var traced = false

  /// Over these, a scenario is refused (exit 65) unless the run accepts it explicitly.
  public enum Limits {
    public static let memoryBytes = 4.0 * 1024 * 1024 * 1024
    public static let outputBytes = 2.0 * 1024 * 1024 * 1024
    /// A run stops at `WorldSpec.maxEvents` (`WorldSpec.defaultMaxEvents`, 250 M): over it, the
    /// results would be cut short.
    public static let events = Double(WorldSpec.defaultMaxEvents)
    /// Events in all the parts of a world of independent parts: about four minutes on two cores.
    public static let totalEvents = 2_000_000_000.0
    /// The time of the event limit at the slowest rate measured (about five minutes): a run
    /// whose events are within it but whose time is not (a public-database author's writes, which
    /// cost more as the zone's history grows, or large files) is refused too.
    public static let seconds = events * Cost.secondsPerEvent
  }

  /// Fitted costs (docs/limits.md).
  enum Cost {
    /// One core's time per event at the slowest rate measured: the million-install
    /// public-database day, 200.8 M events in 247 s.
    static let secondsPerEvent = 1.23e-6
    /// A write of a store whose copy is replayed (a public-database author) reads the zone's
    /// history through searches whose cost grows with its log, and misses cache more as it
    /// grows: measured on two authors writing 600 an hour (40 % deletes), 0.69 µs a write in
    /// all at a day (28,800 writes in the zone), 1.56 at 8 days and 2.02 at 32 (922,000). This
    /// much per write and per doubling of the zone's writes covers the whole run's time alone.
    static let secondsPerReplayedWrite = 0.15e-6
    /// A row an author's replayed store takes (another author's write, read record by record as
    /// its page is logged; a reader's pages are merged and cost per poll), per doubling of the
    /// zone's writes. The rows grow with the square of the authors while their events grow with
    /// the authors: authors at 60 edits an hour each took, in all, 0.0126 µs per such row and
    /// doubling (40 authors, 30 days: 67.4 M rows, 17.5 s) and 0.0117 (100 authors, 10 days:
    /// 142 M rows, 34.7 s). With the events' own term every such run is within its estimate; the
    /// million-install day, whose events set the slowest rate, is not counted twice over (its
    /// 10,000 authors' 240 M rows add 42 s to 251 s, and it runs in 149 s).
    static let secondsPerAuthorRow = 0.012e-6
    /// Each write's own work (making its object, committing it, its bookkeeping), which a bulk
    /// insert does for a million objects in a few events: `realworld-million-import` (1 M
    /// writes, 15,000 events) takes 0.35 s; 0.5 µs leaves room for a slower hour.
    static let secondsPerWrite = 0.5e-6
    /// A run's set-up and its summary: up to 0.01 s on the library's smallest runs.
    static let secondsPerRun = 0.02
    /// Writing a file: `latency.csv`'s 1.7 GB of `fleet-10k-public` took 8.9 s in all; 5 ns a
    /// byte bounds the writing.
    static let secondsPerOutputByte = 5e-9
    /// The kernel's share of a run's CPU: each page the run touches is zeroed and mapped, and
    /// arrays that grow by doubling touch more than their peak. Measured (issue 71, item 7) as
    /// system time against peak memory: 1.4 ns a byte (`realworld-million-import`, 0.45 s for 315
    /// MB) to 1.9 (two million public objects with a reader, 1.71 s for 889 MB); the estimate had
    /// counted user time alone and was under the CPU of both.
    static let secondsPerMemoryByte = 2.5e-9
    /// A public zone whose copies a reader replays keeps a page log of every write of a writer
    /// whose own copy is whole (a bulk insert's), shared by its readers, and the first reader
    /// merges each page: two million bulk-inserted objects with one
    /// reader took 342 MB and 0.66 s more than with none (a second reader added 0.2 s, no memory).
    static let bytesPerReplayedZoneWrite = 175.0
    static let secondsPerReplayedZoneWrite = 0.45e-6
    /// A timeline entry's decoding, its line in the resolved scenario and the scenario's
    /// fingerprint: 20,000 lifecycle entries took 0.29 s of a run that simulated 0.12 s.
    static let secondsPerTimelineEntry = 15e-6
    static let baseBytes = 24.0 * 1024 * 1024
    /// Each device's state, held for the whole run: its `DeviceState`, stores, decoded spec and
    /// the scheduler's and recorder's entries (about 1 KB at the start of the million-install
    /// public day, 1.9 KB with what its sessions add by its end). Before, `bytesPerEvent` stood
    /// in for it; a device that starts suspended makes too few events to.
    static let bytesPerDevice = 1_000.0
    /// Per event of a public-database row's page (`eventsPerPolledRow`), not an activity: the
    /// reader's packed pages (`AppliedPageLog`), and its page log's entries, of which no more
    /// than `ObserverLog.defaultSpillAfterBytes` stay in memory (the rest go to a temporary
    /// file). Measured at a million installs: 166 M such events, 715 MB of page log (650 MB of
    /// it spilled); 10,000 authors with 90,000 readers: 11.4 MB of packed pages for 16.7 M.
    static let bytesPerPolledRowEventPaged = 0.7
    static let bytesPerPolledRowEventLogged = 4.3
    /// Each zone's state on the server and its stores' bookkeeping: fitted on
    /// `Scripts/fleet/throttle-100k.json` (50,000 private zones of two devices, 711 MiB measured,
    /// 340 MB estimated without it).
    static let bytesPerZone = 7_500.0
    static let bytesPerRow = 18.0
    static let bytesPerEvent = 16.0
    /// Kept per push event for latency.csv's notify split, when that file is written.
    static let bytesPerEventWithLatency = 12.0
    /// Kept per public-database row when latency.csv is written (the summary alone tallies such a
    /// row and lets it go): a 30-day public store of 3.5 M rows peaked at 102 MB without the file
    /// and 183 MB with it (estimated 89 and 101 MB before this term).
    static let bytesPerPolledRowWritten = 23.0
    static let bytesPerHeldRecord = 16.0
    static let bytesPerWrite = 250.0
    static let eventsPerRow = 0.35
    /// The events a store makes taking `rows` pushed rows (issue 71, item 9). A CKSyncEngine
    /// device fetches at each push: its activity, request, pages and saved state, 4.5 to 4.9
    /// events a row on accounts of 10 to 1,000 devices at 6 edits an hour each (27.1 M events for
    /// the 1,000, estimated 2.2 M before at the Core Data rate). A Core Data device's rows
    /// coalesce into the imports the scheduler allows, and its rate depends on how its imports
    /// bind: 4 a row where they do not (10 and 30 devices), 0.45 at 1,000 devices, 0.35 on
    /// the library's worlds; kept at 0.35, which is low for accounts of 30 to 300 devices
    /// (a known gap, docs/limits.md).
    static func pushedRowEvents(_ rows: Double, engine: Bool) -> Double {
      (engine ? 4.9 : eventsPerRow) * rows
    }
    /// And its state beyond its events' (the engine's pending fetches and saved state): that
    /// account peaked at 630 MB, 51 MB over its events' share.
    static let bytesPerEngineRow = 12.0
    /// What a run of parts keeps per row until its summary: the latency of each visible row, up
    /// to `LatencySample.defaultExactLimit` rows; past it the latencies are counted in a
    /// histogram of `histogramBytes` at most.
    static let bytesPerPartitionedRow = 8.0
    static let histogramBytes = 54_272.0 * 8
    /// The decoded scenario's share per device, held for the whole run of parts (a million
    /// devices: about 430 MB before a group's devices shared their entry's settings, 350–400 MB
    /// since; fleets of 100,000 ran 2.3x over their estimate without it).
    static let bytesPerDecodedDevice = 400.0
    /// Parts whose state is live at once, at most (one per thread; more threads than this
    /// seldom help a 2-to-8-core machine).
    static let partsInFlight = 8.0
    /// A bulk insert's rows arrive in pages of about 200, a few events each.
    static let eventsPerPagedRow = 0.015
    /// A public-database row arrives with the rest of a reader's poll, in pages of 200: fitted on
    /// `Scripts/fleet/public-*` (1,000 to 10,000 authors, 99,000 to 990,000 readers, a day:
    /// 5.9 M, 27.0 M and 200.8 M events against 0.24 G, 2.1 G and 23.7 G rows; every device
    /// there starts suspended and opens its app four times a day, 36 events), where 0.015 made
    /// 540 M of the last. Estimated now at 0.90x, 0.95x and 1.01x of what they make.
    static let eventsPerPolledRow = 0.007
    static let eventsPerWrite = 12.0
    /// Per hour of a device whose app may run (`awakeThroughTheRun`).
    static let eventsPerDeviceHour = 6.0
    /// Under a container throttle every device may retry after each retry-after: a request, its
    /// error and the retry's schedule.
    static let eventsPerThrottledRetry = 3.0
    /// Each retry is an activity, recorded with its waits.
    static let bytesPerThrottledRetry = 120.0
    /// Measured (docs/limits.md): a repeating nudge's activation, about one event each (1.0 at
    /// 10 ms, 1.2 at 1 s); a poll of the public database, about one per device (1.0–1.06); a usage
    /// session, its start, end and the work they trigger (4 at 10 ms, 8.7 at 10 s); a blocked
    /// activity's re-check at each `policyValidity` (one per export or import per store).
    static let eventsPerNudge = 1.2
    static let eventsPerPoll = 1.1
    static let eventsPerSession = 9.0
    static let eventsPerRecheck = 1.0
    /// Per device a timeline entry names (measured on 100,000 entries naming 20 CKSyncEngine
    /// devices, a day, where the estimate said 120 events and the run made 2.5 M to 10.3 M):
    /// a `fetchChanges` 4.9 events (the fetch's activity, its request and its pages), a
    /// `sendChanges` 4.0, any other entry about one (its own, and the work a state change starts
    /// is the device's). A `nudge`'s are `eventsPerNudge`; an `edit`'s and a `bulkInsert`'s are
    /// their writes'.
    static let eventsPerFetchEntry = 4.9
    static let eventsPerSendEntry = 4.0
    static let eventsPerOtherEntry = 1.05
    /// Memory per timeline entry (its decoding: the parsed document and the decoded entry, 1.2 kB)
    /// and per device it names (the agenda's line and its event, queued from the start: 110 bytes):
    /// 100,000 entries of 20 devices measured 357 MB of peak memory (28.6 MB estimated before).
    static let bytesPerTimelineEntry = 1_200.0
    static let bytesPerTimelineDevice = 110.0
    /// The defaults whose events `eventsPerDeviceHour` already holds.
    static let defaultPollSeconds = 1800.0
    static let defaultValiditySeconds = 900.0
    /// A `latency.csv` row: its text columns (60 bytes and the scenario's name), and 12 bytes for
    /// each timed column ("0.000000000,"). The fixed 560 bytes it was before had fallen behind
    /// the columns added since: rows of 77 columns measured 843 and 859 bytes (`quickstart`, a
    /// 30-day public store), and such a run was estimated 1.9 GB of files and wrote 3.0 GB.
    static func latencyRowBytes(_ spec: WorldSpec, name: String) -> Double {
      let waits = Double(spec.scheduler.policies.count + spec.reportedCauses.count + LatencyRow.heldNames.count)
      let timed =
        Double(5 + LatencyRow.stageNames.count + 2 + LatencyRow.notifyCauseNames.count)
        + Double(LatencyRow.transferCauseNames.count) + 2 * waits
      return 60 + Double(name.utf8.count) + 12 * timed
    }
    static let activityRowBytes = 230.0
    /// A `trace.csv` row (`--trace`: every processed event, kept until the run ends): the
    /// scenario's name, the time's digits and about 30 bytes more, and 24 bytes of memory an
    /// event. Measured: 37.2 bytes a row and 18 bytes an event at 8 days (292,077 events). Not
    /// counted before, so a long traced run met no limit.
    static func traceRowBytes(_ spec: WorldSpec, name: String) -> Double {
      var digits = 1.0
      var seconds = spec.duration.seconds
      while seconds >= 10 {
        seconds /= 10
        digits += 1
      }
      return 30 + Double(name.utf8.count) + digits
    }
    static let bytesPerTracedEvent = 24.0
    /// An `objects.csv` row (every store's every object at the end): its numbers and commas
    /// (36 bytes), the scenario's name and the device's. Measured: 44.6 and 46.0 bytes a row on
    /// 30-day public stores (68,539 and 753,919 rows), where the file was not estimated at all
    /// (2 kB estimated, 35 MB written).
    static func objectRowBytes(name: String, deviceNameBytes: Double) -> Double {
      36 + Double(name.utf8.count) + deviceNameBytes
    }
    static let timelineRowBytes = 70.0
  }

  /// The event limit of a run accepted over the limits (`--accept-large`): four times the busiest
  /// part's estimated events, never under the default. An accepted run reaches its end; one that
  /// runs away still stops.
  public var acceptedEventLimit: Int { Int(min(max(Limits.events, 4 * largestPartEvents), 1e12)) }

  public init(_ scenario: Scenario) {
    let spec = scenario.spec
    let hours = spec.duration.seconds / 3600
    let layout = spec.zoneLayout()
    var storesInZone = [Double](repeating: 0, count: layout.zones.count)
    for zone in layout.storeZones where zone >= 0 { storesInZone[Int(zone)] += 1 }
    // Stores that keep a copy of their zone: a replayed store replays its copy instead.
    let replayed = spec.replayedStores(storeZones: layout.storeZones, zoneScopes: layout.zones.map(\.scope))
    var copiesInZone = storesInZone
    var replayedInZone = [Bool](repeating: false, count: layout.zones.count)
    var replayedZoneWrites = 0.0
    for (store, zone) in layout.storeZones.enumerated() where zone >= 0 && replayed[store] {
      copiesInZone[Int(zone)] -= 1
      replayedInZone[Int(zone)] = true
    }
    // Per device: its edits (workload and scripted) and bulk inserts, and the objects they make.
    let counts = EditCounts(spec)
    let (editsByDevice, bulkByDevice, objectsByDevice) = (counts.edits, counts.bulk, counts.objects)
    let bulkSaves = counts.bulkSaves
    var objectsInZone = [Double](repeating: 0, count: layout.zones.count)
    var rows = 0.0
    var pushedRows = 0.0
    var polledRows = 0.0
    var firstStore = 0
    // Per device, its rows and pushed rows, and the records its objects make in its zone's stores.
    var rowsByDevice = [Double](repeating: 0, count: spec.devices.count)
    var pushedRowsByDevice = [Double](repeating: 0, count: spec.devices.count)
    var pushedEventsByDevice = [Double](repeating: 0, count: spec.devices.count)
    var pushedEvents = 0.0
    var engineRows = 0.0
    var polledRowsByDevice = [Double](repeating: 0, count: spec.devices.count)
    var heldByDevice = [Double](repeating: 0, count: spec.devices.count)
    // Per device, its writes into a replayed copy (a public-database author's), and per zone, all
    // the writes it takes.
    var replayedWritesByDevice = [Double](repeating: 0, count: spec.devices.count)
    var authorRowsByDevice = [Double](repeating: 0, count: spec.devices.count)
    var writesInZone = [Double](repeating: 0, count: layout.zones.count)
    var zoneByDevice = [Int](repeating: -1, count: spec.devices.count)
    // Per zone, the replayed stores that write (an author's, whose pages are not merged).
    var authorStoresInZone = [Double](repeating: 0, count: layout.zones.count)
    // Per zone, the edits its observers take by push.
    var pushedEditsInZone = [Double](repeating: 0, count: layout.zones.count)
    do {
      var store = 0
      for device in spec.devices {
        for _ in device.stores {
          let zone = layout.storeZones[store]
          if zone >= 0 && replayed[store] && device.workload != nil { authorStoresInZone[Int(zone)] += 1 }
          store += 1
        }
      }
    }
    for (index, device) in spec.devices.enumerated() {
      let zones = layout.storeZones[firstStore..<(firstStore + device.stores.count)]
      firstStore += device.stores.count
      // The zone its edits write: the workload's store where it names one (a public store after
      // a private one), else its first syncing store.
      let named = device.workload?.store.flatMap { $0 < zones.count ? zones[zones.startIndex + $0] : nil }
      guard let zone = named.flatMap({ $0 >= 0 ? $0 : nil }) ?? zones.first(where: { $0 >= 0 }) else { continue }
      zoneByDevice[index] = Int(zone)
      writesInZone[Int(zone)] += editsByDevice[index] + bulkByDevice[index]
      // The store it writes, and whether its copy is replayed: then it is an author's store.
      let writesReplayed = zones.firstIndex(of: zone).map { replayed[$0] } ?? false
      if writesReplayed { replayedWritesByDevice[index] = editsByDevice[index] + bulkByDevice[index] }
      // A writer whose own copy is kept whole, into a zone whose readers replay theirs: its
      // writes are paged into the log they replay (authors' own pages are counted below).
      if !writesReplayed && replayedInZone[Int(zone)] { replayedZoneWrites += editsByDevice[index] + bulkByDevice[index] }
      let ownAuthorStore = writesReplayed && device.workload != nil
      authorRowsByDevice[index] =
        (editsByDevice[index] + bulkByDevice[index]) * max(0, authorStoresInZone[Int(zone)] - (ownAuthorStore ? 1 : 0))
      let observers = max(0, storesInZone[Int(zone)] - Double(zones.filter { $0 == zone }.count))
      rowsByDevice[index] = (editsByDevice[index] + bulkByDevice[index]) * observers
      rows += rowsByDevice[index]
      // Rows of edits reach observers through pushes and imports, an event or so each; a bulk
      // insert's rows arrive in pages, and the public database's at polls.
      if layout.zones[Int(zone)].scope != .public {
        pushedRowsByDevice[index] = editsByDevice[index] * observers
        pushedRows += pushedRowsByDevice[index]
        pushedEditsInZone[Int(zone)] += editsByDevice[index]
      } else {
        polledRows += rowsByDevice[index]
        polledRowsByDevice[index] = rowsByDevice[index]
      }
      objectsInZone[Int(zone)] += objectsByDevice[index]
      heldByDevice[index] = objectsByDevice[index] * copiesInZone[Int(zone)]
    }
    // Each observing store's pushed rows, counted where they arrive: the other devices' edits
    // in its zone.
    do {
      var store = 0
      for (index, device) in spec.devices.enumerated() {
        for _ in device.stores {
          let zone = Int(layout.storeZones[store])
          store += 1
          guard zone >= 0, layout.zones[zone].scope != .public else { continue }
          let rowsIn = max(0, pushedEditsInZone[zone] - (zoneByDevice[index] == zone ? editsByDevice[index] : 0))
          let events = Cost.pushedRowEvents(rowsIn, engine: device.client == .syncEngine)
          pushedEventsByDevice[index] += events
          pushedEvents += events
          if device.client == .syncEngine { engineRows += rowsIn }
        }
      }
    }
    let edits = editsByDevice.reduce(0, +)
    writes = edits + bulkByDevice.reduce(0, +)
    self.rows = rows
    self.polledRows = polledRows
    heldRecords = zip(copiesInZone, objectsInZone).reduce(0) { $0 + $1.0 * $1.1 }
    let awake = Self.awakeThroughTheRun(spec)
    let deviceHours = Double(awake.filter { $0 }.count) * hours
    let timed = Self.timedEvents(spec, layout: layout)
    let timelineBytes = Self.timelineBytes(spec)
    let polledRowEvents = Cost.eventsPerPolledRow * polledRows
    var events =
      (pushedEvents + Cost.eventsPerPagedRow * (rows - pushedRows - polledRows)
        + polledRowEvents + Cost.eventsPerWrite
        * (edits + bulkSaves) + Cost.eventsPerDeviceHour * deviceHours) + timed.reduce(0, +)
    var retries = 0.0
    if spec.server.throttleRequestsPerSecond != nil || spec.server.deviceThrottleRequestsPerMinute != nil {
      retries = Self.throttledRetries(spec, requests: writes + rows)
      events += Cost.eventsPerThrottledRetry * retries
    }
    let perEvent = Cost.bytesPerEvent + (scenario.outputs.contains("latency") ? Cost.bytesPerEventWithLatency : 0)
    self.events = events
    // A row of a pushed zone brings its observer an import and a UI refresh (their bookkeeping is
    // the row's cost); a public-database row does not, as readers import at polls: the summary
    // tallies it without keeping it, past the latency it keeps (exact values up to their limit).
    let writtenPolledRows = scenario.outputs.contains("latency") ? polledRows : 0
    memoryBytes =
      Cost.baseBytes + Cost.bytesPerRow * (rows - polledRows) + Cost.bytesPerPartitionedRow
      * min(polledRows, Double(LatencySample.defaultExactLimit)) + perEvent * (events - polledRowEvents)
      + Cost.bytesPerPolledRowWritten * writtenPolledRows
      + Cost.bytesPerPolledRowEventPaged * polledRowEvents
      + min(Cost.bytesPerPolledRowEventLogged * polledRowEvents, Double(ObserverLog.defaultSpillAfterBytes))
      + Cost.bytesPerDevice * Double(spec.devices.count)
      + Cost.bytesPerZone * Double(layout.zones.count)
      + Cost.bytesPerThrottledRetry
      * retries + Cost
      .bytesPerHeldRecord * heldRecords
      + Cost.bytesPerWrite * writes + timelineBytes
      + Cost.bytesPerReplayedZoneWrite * replayedZoneWrites + Cost.bytesPerEngineRow * engineRows
      + (spec.traceEvents ? Cost.bytesPerTracedEvent * events : 0)
    var output = 2048.0
    if scenario.outputs.contains("latency") { output += Cost.latencyRowBytes(spec, name: scenario.name) * rows }
    if scenario.outputs.contains("activities") { output += Cost.activityRowBytes * events / 4 }
    if scenario.outputs.contains("objects") {
      // A row per store and object of its zone.
      let rows = zip(storesInZone, objectsInZone).reduce(0.0) { $0 + $1.0 * $1.1 }
      let names = scenario.deviceNames.reduce(0) { $0 + $1.utf8.count }
      let deviceNameBytes = Double(names) / Double(max(1, scenario.deviceNames.count))
      output += Cost.objectRowBytes(name: scenario.name, deviceNameBytes: deviceNameBytes) * rows
    }
    if scenario.outputs.contains("timeline") {
      output +=
        Cost.timelineRowBytes * Double(spec.devices.count) * spec.duration.seconds
        / max(scenario.sampleInterval.seconds, 1e-9)
    }
    traced = spec.traceEvents
    if traced { output += Cost.traceRowBytes(spec, name: scenario.name) * events }
    outputBytes = output
    temporaryBytes = max(
      0, Cost.bytesPerPolledRowEventLogged * polledRowEvents - Double(ObserverLog.defaultSpillAfterBytes))
    largestPartEvents = events
    // A replayed author's writes and the rows its store takes from other authors: their cost
    // beyond their events, per doubling of its zone's writes.
    var replayedSeconds = [Double](repeating: 0, count: spec.devices.count)
    for index in spec.devices.indices where replayedWritesByDevice[index] > 0 || authorRowsByDevice[index] > 0 {
      let doublings = DeterministicMath.log(2 + writesInZone[zoneByDevice[index]]) / DeterministicMath.log(2)
      replayedSeconds[index] =
        (Cost.secondsPerReplayedWrite * replayedWritesByDevice[index] + Cost.secondsPerAuthorRow
          * authorRowsByDevice[index]) * doublings
    }
    fileSeconds = Cost.secondsPerOutputByte * (outputBytes + temporaryBytes)
    let timelineSeconds = Cost.secondsPerTimelineEntry * Double(spec.timeline.count)
    seconds =
      Cost.secondsPerRun + Cost.secondsPerEvent * events + Cost.secondsPerWrite * writes + replayedSeconds.reduce(0, +)
      + Cost.secondsPerReplayedZoneWrite * replayedZoneWrites + Cost.secondsPerMemoryByte * memoryBytes
      + timelineSeconds + fileSeconds
    largestPartSeconds = seconds
    let partitioning = WorldPartitioning(spec)
    parts = partitioning.count
    guard parts > 1 else { return }
    // Each part is its own run: its events and live state are its devices' share.
    var largestPartMemory = 0.0
    largestPartEvents = 0
    largestPartSeconds = 0
    for part in 0..<parts {
      var (partEvents, partMemory, partSeconds) = (0.0, 0.0, 0.0)
      for device in partitioning.devices(ofPart: part) {
        let index = Int(device)
        let deviceEvents =
          pushedEventsByDevice[index] + Cost.eventsPerPagedRow
          * (rowsByDevice[index] - pushedRowsByDevice[index] - polledRowsByDevice[index]) + Cost.eventsPerPolledRow
          * polledRowsByDevice[index] + Cost.eventsPerWrite * editsByDevice[index]
          + Cost.eventsPerDeviceHour * (awake[index] ? hours : 0) + timed[index]
        partEvents += deviceEvents
        partSeconds +=
          Cost.secondsPerEvent * deviceEvents + Cost.secondsPerWrite * (editsByDevice[index] + bulkByDevice[index])
          + replayedSeconds[index]
        partMemory +=
          Cost.bytesPerRow * rowsByDevice[index] + perEvent * deviceEvents + Cost.bytesPerHeldRecord
          * heldByDevice[index] + Cost.bytesPerWrite * (editsByDevice[index] + bulkByDevice[index])
      }
      largestPartEvents = max(largestPartEvents, partEvents)
      // The files are written as parts finish: counted whole with the busiest part, to bound it.
      largestPartSeconds = max(
        largestPartSeconds,
        Cost.secondsPerRun + partSeconds + Cost.secondsPerMemoryByte * partMemory + timelineSeconds + fileSeconds)
      largestPartMemory = max(largestPartMemory, partMemory)
    }
    // A run that writes only the summary, or rows that are written part by part as parts finish
    // (`PartRows.files`), keeps each part's latencies and lets the rest go.
    if PartRows.comeAllPartByPart(scenario.outputs) && !spec.traceEvents {
      memoryBytes =
        Cost.baseBytes + Cost.bytesPerPartitionedRow * min(rows, Double(LatencySample.defaultExactLimit))
        + (rows > Double(LatencySample.defaultExactLimit) ? Cost.histogramBytes : 0)
        + Cost.bytesPerDecodedDevice * Double(spec.devices.count)
        + min(Double(parts), Cost.partsInFlight) * largestPartMemory + timelineBytes
    }
  }

  /// The memory a timeline holds through the run: each entry decoded, and a line of the agenda
  /// (with its queued event) per device it names.
  static func timelineBytes(_ spec: WorldSpec) -> Double {
    let deviceEntries = spec.timeline.reduce(0.0) { $0 + Double($1.devices.count) }
    return Cost.bytesPerTimelineEntry * Double(spec.timeline.count) + Cost.bytesPerTimelineDevice * deviceEntries
  }

  /// The events one timeline entry makes on each device it names, besides those counted with
  /// writes (`edit`, `bulkInsert`, `bulkDelete`) and nudges.
  static func eventsPerDevice(of action: TimelineAction.Action) -> Double {
    switch action {
    case .fetchChanges: return Cost.eventsPerFetchEntry
    case .sendChanges: return Cost.eventsPerSendEntry
    case .edit, .bulkInsert, .bulkDelete, .nudge: return 0
    default: return Cost.eventsPerOtherEntry
    }
  }

  /// Retries under a throttle. At most, every device retries after each retry-after for the whole
  /// run: so under a per-device throttle, or a container throttle that the steady demand (a request
  /// per write and per row, spread over the run) reaches. Under it, a container throttle refuses
  /// only bursts: the launch and each timeline entry, whose n devices ask at once (about two
  /// requests each). The throttle lets R through a second, so the burst drains in 2n / R seconds,
  /// in which a waiting device retries after each retry-after: n² / (R · retry-after) retries. The
  /// bound alone estimated `Scripts/fleet/throttle-100k.json` at 77.7 M events (5.8 M made) and
  /// refused it.
  static func throttledRetries(_ spec: WorldSpec, requests: Double) -> Double {
    let duration = max(spec.duration.seconds, 1e-9)
    let retryAfter = max(spec.server.throttleRetryAfter.mean, 1)
    let bound = Double(spec.devices.count) * duration / retryAfter
    guard spec.server.deviceThrottleRequestsPerMinute == nil, let perSecond = spec.server.throttleRequestsPerSecond,
      requests / duration < perSecond
    else { return bound }
    // Each burst's n², summed: the launch's, then each entry's at each of its occurrences.
    var squares = Double(spec.devices.count) * Double(spec.devices.count)
    for action in spec.timeline {
      let occurrences = max(1, nudges(action, duration: duration) ?? 1)
      squares += min(occurrences, 1e6) * Double(action.devices.count) * Double(action.devices.count)
    }
    return min(bound, squares / (max(perSecond, 1e-9) * retryAfter))
  }

  /// How many times a `nudge` entry nudges its devices within `duration` seconds (nil for another
  /// action): once, or every `every` from its time until its `until` or the run's end.
  static func nudges(_ action: TimelineAction, duration: Double) -> Double? {
    guard case .nudge(let every, let until, _) = action.action else { return nil }
    let start = action.at.seconds
    let end = min(until.map { $0.seconds } ?? duration, duration)
    return every.map { start > end ? 0 : ((end - start) / max($0.seconds, 1e-9)).rounded(.down) + 1 } ?? 1
  }

  /// Per device, whether its app may run through the run, so that `eventsPerDeviceHour` applies:
  /// all but those that start suspended or not running and that no timeline action launches or
  /// activates. Those cost only what their usage sessions, edits, pushes and clocks bring:
  /// measured, 1,000 such devices on the public database make 186 events in a day, and 44 k
  /// with four sessions a day each (the sessions' 36 k are `eventsPerSession`), where the
  /// device-hour term alone would give them 144 k.
  static func awakeThroughTheRun(_ spec: WorldSpec) -> [Bool] {
    var awake = spec.devices.map { $0.initialAppState != .suspended && $0.initialAppState != .notRunning }
    for action in spec.timeline {
      switch action.action {
      case .launch, .activate:
        for device in action.devices where awake.indices.contains(device) { awake[device] = true }
      default: continue
      }
    }
    return awake
  }

  /// Per device, the events of sources that run on a clock rather than per write: repeating
  /// nudges, usage sessions, public-database polls faster than the default, and blocked
  /// activities re-checked more often than the default `policyValidity`. Each was missed before
  /// (a nudge every 10 ms was estimated at 518 events and made 1.4 M).
  static func timedEvents(
    _ spec: WorldSpec, layout: (zones: [(scope: DatabaseScope, owner: Int)], storeZones: [Int32])
  )
    -> [Double]
  {
    let duration = spec.duration.seconds
    var events = [Double](repeating: 0, count: spec.devices.count)
    for action in spec.timeline {
      let each =
        nudges(action, duration: duration).map { Cost.eventsPerNudge * $0 } ?? eventsPerDevice(of: action.action)
      for device in action.devices where events.indices.contains(device) { events[device] += each }
    }
    let pollExcess = max(0, 1 / max(spec.polling.interval.seconds, 1e-9) - 1 / Cost.defaultPollSeconds)
    let recheckExcess = max(
      0, 1 / max(spec.scheduler.policyValidity.seconds, 1e-9) - 1 / Cost.defaultValiditySeconds)
    var firstStore = 0
    for (index, device) in spec.devices.enumerated() {
      if let usage = device.usage {
        let sessions: Double
        if let period = usage.period {
          let end = min(period.until?.seconds ?? duration, duration)
          sessions = max(0, (end - period.from.seconds) / max(period.every.seconds, 1e-9))
        } else {
          sessions = usage.sessionsPerDay * duration / 86_400
        }
        events[index] += Cost.eventsPerSession * sessions
      }
      let zones = layout.storeZones[firstStore..<(firstStore + device.stores.count)]
      firstStore += device.stores.count
      let publicStores = Double(zones.filter { $0 >= 0 && layout.zones[Int($0)].scope == .public }.count)
      events[index] += Cost.eventsPerPoll * publicStores * duration * pollExcess
      events[index] += Cost.eventsPerRecheck * 2 * Double(device.stores.count) * duration * recheckExcess
    }
    return events
  }

  /// One line for people: `~6.0 M rows, 2.7 M events, 210 MB of memory, 4 kB of files`.
  public var description: String {
    "~\(Self.count(writes)) writes, \(Self.count(rows)) rows, \(Self.count(events)) events, "
      + "\(Self.bytes(memoryBytes)) of memory, \(Self.bytes(outputBytes)) of files"
      + (temporaryBytes > 0 ? " and \(Self.bytes(temporaryBytes)) of temporary files" : "")
      + (parts > 1 ? ", \(Self.count(Double(parts))) independent parts" : "")
      + ", at most \(Self.duration(seconds)) of one core's time"
  }

  /// `42 s`, `5.1 min`, `2.3 h`.
  public static func duration(_ seconds: Double) -> String {
    if seconds >= 5400 { return CSVTable.number((seconds / 360).rounded() / 10) + " h" }
    if seconds >= 90 { return CSVTable.number((seconds / 6).rounded() / 10) + " min" }
    if seconds >= 10 { return CSVTable.number(seconds.rounded()) + " s" }
    return CSVTable.number((seconds * 10).rounded() / 10) + " s"
  }

  /// The problems of a scenario over a limit (empty when within them).
  public func problems(file: String) -> [ScenarioProblem] {
    var problems: [ScenarioProblem] = []
    let accept = "or pass --accept-large to run it anyway"
    if memoryBytes > Limits.memoryBytes {
      // Name the part that dominates: rows grow with devices per zone × writes; held records with
      // stores per zone × objects; the rest with the duration.
      let rowsShare = Cost.bytesPerRow * (rows - polledRows) + Cost.bytesPerEvent * Cost.eventsPerRow * rows
      let path =
        rowsShare > memoryBytes / 2
        ? "devices" : heldRecords * Cost.bytesPerHeldRecord > memoryBytes / 2 ? "workloads" : "duration"
      problems.append(
        ScenarioProblem(
          file: file, path: path,
          message: "the run would need about \(Self.bytes(memoryBytes)) of memory (\(description)), "
            + "over the limit of \(Self.bytes(Limits.memoryBytes))",
          hint: "fewer devices sharing a zone, fewer edits or a shorter duration; \(accept)"))
    }
    let scope = parts > 1 ? "its busiest part (of \(parts) independent parts) would" : "the run would"
    if largestPartEvents > Limits.events {
      problems.append(
        ScenarioProblem(
          file: file, path: "duration",
          message: "\(scope) process about \(Self.count(largestPartEvents)) events (\(description)), over the limit of "
            + "\(Self.count(Limits.events)) at which a run stops",
          hint: "a shorter duration, fewer devices or fewer edits; \(accept)"))
    }
    // The time limit is the event limit's time: it adds a problem only where the events are within
    // theirs (a replayed author's writes, or the files, make up the rest).
    if largestPartEvents <= Limits.events && largestPartSeconds > Limits.seconds {
      problems.append(
        ScenarioProblem(
          file: file, path: "duration",
          message: "\(scope) take up to \(Self.duration(largestPartSeconds)) of one core's time "
            + "(\(description)), over the limit of \(Self.duration(Limits.seconds))",
          hint: "a shorter duration, fewer edits or fewer files; \(accept)"))
    }
    if parts > 1 && events > Limits.totalEvents {
      problems.append(
        ScenarioProblem(
          file: file, path: "duration",
          message: "the run would process about \(Self.count(events)) events in all (\(description)), over the "
            + "limit of \(Self.count(Limits.totalEvents)) (minutes of simulation)",
          hint: "a shorter duration, fewer devices or fewer edits; \(accept)"))
    }
    if outputBytes + temporaryBytes > Limits.outputBytes {
      problems.append(
        ScenarioProblem(
          file: file, path: "outputs",
          message:
            "the run would write about \(Self.bytes(outputBytes + temporaryBytes)) of files (\(description)), over the limit of "
            + "\(Self.bytes(Limits.outputBytes))",
          hint:
            "leave latency.csv, activities.csv, objects.csv or timeline.csv out of \"outputs\" (or sample less often)"
            + (traced ? ", or run without --trace (trace.csv holds every event)" : "") + "; \(accept)"
        ))
    }
    return problems
  }

  /// `6.0 M`, `2.7 k`: a count for people.
  public static func count(_ value: Double) -> String {
    if value >= 1e9 { return CSVTable.number((value / 1e8).rounded() / 10) + " G" }
    if value >= 1e6 { return CSVTable.number((value / 1e5).rounded() / 10) + " M" }
    if value >= 1e3 { return CSVTable.number((value / 1e2).rounded() / 10) + " k" }
    return CSVTable.number(value.rounded())
  }

  public static func bytes(_ value: Double) -> String {
    let units: [(String, Double)] = [("GB", 1024 * 1024 * 1024), ("MB", 1024 * 1024), ("kB", 1024)]
    for (name, size) in units where value >= size {
      return CSVTable.number((value / size * 10).rounded() / 10) + " " + name
    }
    return CSVTable.number(value.rounded()) + " bytes"
  }
}
