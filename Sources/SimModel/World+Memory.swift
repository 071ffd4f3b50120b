import SimKernel

/// How much memory the world's state takes, split into records and everything else.
public struct MemoryReport: Sendable {
  /// Server records and every device's copy of them, plus unexported history.
  public var recordBytes: Int
  /// Fixed state per device (device, stores, random streams, scheduler bookkeeping), averaged.
  public var perDeviceBytes: Int
  /// The part of `perDeviceBytes` that is the rate limiter's memory of recent runs (exact over
  /// its longest window, so it grows with the activity rate), averaged.
  public var runHistoryBytesPerDevice: Int
  /// The scheduler's activity table (grows with activities, not devices).
  public var activityBytes: Int
  /// Records the server holds (every zone's objects, deleted ones included).
  public var objects: Int
  /// Writes the world still holds, and changes in the zones' change logs.
  public var heldWrites: Int
  public var loggedChanges: Int

  /// `recordBytes` per object the server holds.
  public var recordBytesPerObject: Int { recordBytes / max(1, objects) }
}

extension MemoryReport {
  /// Nothing measured: the outcome of parts run by another process (`RunProgress`).
  public init() {
    self.init(
      recordBytes: 0, perDeviceBytes: 0, runHistoryBytesPerDevice: 0, activityBytes: 0, objects: 0, heldWrites: 0,
      loggedChanges: 0)
  }
}

extension World {
  /// Sizes from array capacities and element strides (an estimate that ignores allocator slack).
  public func memoryReport() -> MemoryReport {
    func bytes<T>(_ array: [T]) -> Int { array.capacity * MemoryLayout<T>.stride }
    func bytes<T>(_ column: Column<T>) -> Int { column.capacity * MemoryLayout<T>.stride }
    func bytes<T>(_ rows: borrowing RowBuffer<T>) -> Int { rows.capacity * MemoryLayout<T>.stride }
    var records = 0
    var objects = 0
    var loggedChanges = 0
    for zone in server.zones.indices {
      objects += server.zones[zone].objects.count
      loggedChanges += server.zones[zone].changeLog.count
      records +=
        bytes(server.zones[zone].objects) + bytes(server.zones[zone].server) + bytes(server.zones[zone].changeLog)
    }
    for index in clients.stores.indices {
      records += bytes(clients.local[index]) + bytes(clients.history[index])
    }
    // Read-only stores' logged pages stand for their copies; their zones keep every change and set.
    records += clients.appliedPages.bytes
    for overlay in clients.overlays { records += overlay.bytes }
    for zone in server.zones.indices {
      records += bytes(server.zones[zone].allChanges) + bytes(server.zones[zone].fieldSets)
      records += bytes(server.zones[zone].previousChange) + bytes(server.zones[zone].previousSet)
      records += bytes(server.zones[zone].lastSetOfField)
    }
    records += clients.writes.bytes
    // With its heap header (32 bytes); empty arrays share one static buffer.
    func heapBytes<T>(_ array: [T]) -> Int { array.capacity > 0 ? bytes(array) + 32 : 0 }
    var fixed = bytes(devices) + bytes(clients.stores) + bytes(clients.plans) + bytes(server.zoneStores)
    fixed += bytes(scheduler.storeActivities)
    fixed += bytes(deviceTraits) + bytes(levels)
    fixed += bytes(server.accounts)
    let runBytes = scheduler.runHistory.bytes
    let runHistoryBytes = runBytes.rows
    for index in devices.indices {
      fixed += heapBytes(push.wakes[index]) + heapBytes(scheduler.waiting[index])
    }
    fixed += runHistoryBytes
    // The per-store row buffers' inline address and length, and the outer arrays of per-device
    // arrays: one reference each.
    fixed += (clients.history.count + clients.local.count) * MemoryLayout<RowBuffer<Change>>.stride
    fixed += runBytes.slots
    fixed += (push.wakes.count + scheduler.waiting.count) * 8
    return MemoryReport(
      recordBytes: records, perDeviceBytes: fixed / max(1, devices.count),
      runHistoryBytesPerDevice: runHistoryBytes / max(1, devices.count),
      activityBytes: bytes(scheduler.activities) + bytes(clients.runs),
      objects: objects, heldWrites: clients.writes.heldCount, loggedChanges: loggedChanges)
  }
}
