import SimKernel
import SimModel

/// The log a simulated run would have left: the run's world on one kernel, watched by an
/// `EventLogSink`. The fit runs thousands of these; `run --event-log` writes one.
public enum SimulatedLog {
  /// Most devices whose log a run writes (one unified-log file each).
  public static let maxDevices = 1000

  /// Runs `spec` and returns its log, its device names being `names` (the scenario's) and each
  /// device's account its number.
  public static func run(_ spec: WorldSpec, names: [String], epoch: Int64? = nil) -> SyncLog {
    run(spec, names: names, epoch: epoch, checkpoint: nil)!
  }

  /// Runs `spec` as `run(_:names:epoch:)` does, showing the log so far to `proceed` at
  /// `checkpoint` (the log's wall-clock time, microseconds); nil when it says not to go on.
  /// The events shown are those told by then, in the order told (a block is told when it ends).
  public static func run(
    _ spec: WorldSpec, names: [String], epoch: Int64? = nil,
    checkpoint: (time: Int64, proceed: ([LogEvent], [SyncLog.Device]) -> Bool)?
  ) -> SyncLog? {
    let start = epoch ?? EventLogSink.epoch(of: spec)
    let sink = EventLogSink(spec: spec, epoch: start)
    var log = SyncLog()
    log.devices = spec.devices.indices.map { index in
      SyncLog.Device(name: index < names.count ? names[index] : "device\(index)", account: String(spec.devices[index].account))
    }
    let devices = log.devices
    let pause = checkpoint.map { checkpoint in
      WorldRunner.Checkpoint(time: SimTime(nanoseconds: max(0, checkpoint.time - start) * 1000)) {
        checkpoint.proceed(sink.events, devices)
      }
    }
    guard WorldRunner.run(spec, sink: sink, checkpoint: pause) != nil else { return nil }
    log.events = sink.sortedEvents()
    return log
  }

  /// The files of a run's event log: `event-log.ndjson` (SyncSim's format, every device) and
  /// `unified-DEVICE.log` per device (`log show`'s plain text) and `xcode-DEVICE.log` (the Xcode
  /// console with its metadata: the app's messages only); a name with characters a file name
  /// should not hold is written by its position, `unified-3.log`.
  public static func files(_ log: SyncLog) -> [(name: String, text: String)] {
    var files = [("event-log.ndjson", EventLogWriter.eventLog(log.events, devices: log.devices))]
    for (index, device) in log.devices.enumerated() {
      let safe = !device.name.isEmpty && device.name.count <= 64 && device.name.first != "."
        && device.name.unicodeScalars.allSatisfy {
          ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
        }
      let name = safe ? device.name : String(index)
      files.append(("unified-\(name).log", EventLogWriter.unifiedLog(log.events, device: index)))
      files.append(("xcode-\(name).log", EventLogWriter.xcodeConsole(log.events, device: index)))
    }
    return files
  }
}
