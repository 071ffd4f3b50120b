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
    let sink = EventLogSink(spec: spec, epoch: epoch ?? EventLogSink.epoch(of: spec))
    _ = WorldRunner.run(spec, sink: sink)
    var log = SyncLog()
    log.devices = spec.devices.indices.map { index in
      SyncLog.Device(name: index < names.count ? names[index] : "device\(index)", account: String(spec.devices[index].account))
    }
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
