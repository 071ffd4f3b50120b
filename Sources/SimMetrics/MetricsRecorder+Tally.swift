import Foundation
import SimKernel
import SimModel

extension MetricsRecorder {
  /// What every (write, observer) row adds to the summary: how many rows there are, how many are
  /// hidden or not visible, and the visible rows' stage sums and latencies.
  struct RowTally {
    var rowCount = 0
    var hiddenRows = 0
    var notVisibleRows = 0
    var stageSums = [Int128](repeating: 0, count: LatencyRow.stageNames.count)
    var latencies = LatencySample()
    /// Rows that could still become visible (not visible, or pending): their edit to the run's end.
    var censored = LatencySample.censoredSample()
  }

  /// A zone's committed writes in sequence order, as flat columns (what each observer walks).
  struct ZoneColumns: Sendable {
    var sequence: [Int32]
    var edited: [Int64]
    var committed: [Int64]
    var writer: [Int32]
    var objects: [ObjectID]
  }

  /// The recorder, read (never written) by the shares' threads once the run has ended.
  struct UncheckedRecorder: @unchecked Sendable {
    let value: MetricsRecorder
    init(_ value: MetricsRecorder) { self.value = value }
  }

  /// The rows' contributions to the summary, without building the rows: the same counts, sums and
  /// latencies as a pass over `forEachLatencyRow`, in a few integer operations a row.
  ///
  /// A public-database app or a large shared zone has writes × readers rows (a day of 1,000
  /// authors and 99,000 readers has 240 million), and building each row, with its stuck cause and
  /// activity references, cost most of such a run. The summary needs none of that. A row's fate is
  /// decided by its write alone unless the write was committed (then it is hidden, a public
  /// delete's ghost, or visible when the observer's running maximum of imported and then of
  /// visible tokens first reaches the write's sequence), so the committed writes of a zone are
  /// sorted by sequence once, and each observer walks them beside its imports and UI refreshes
  /// with two cursors that only move forward.
  ///
  /// `threads` share a large zone's observers, `minimumShare` at least each (the summary is the
  /// same for any number).
  func rowTally(threads: Int = 1, minimumShare: Int = observersPerShare) -> RowTally {
    var tally = RowTally()
    observerLog.prepareForReading()
    // Per device scratch, sized once: a world of 50,000 private zones sized it per zone (100,000
    // devices each time) and took 256 s where it had taken 6.
    var perDevice = [Int32](repeating: 0, count: (storeDevice.map(\.index).max() ?? -1) + 1)
    let sameDevice = storesOfSameDevice(scratch: &perDevice)
    var committedByZone = [[Int32]](repeating: [], count: zoneStores.count)
    var publicDeletes: [Int32] = []
    for (index, write) in writes.enumerated() {
      let zone = Int(storeZone[write.store.index])
      guard zone >= 0 else { continue }
      let rows = zoneStores[zone].count - Int(sameDevice[write.store.index])
      tally.rowCount += rows
      guard !write.superseded, !write.lostUpdate, !write.lost else { continue }
      guard write.savedAt != nil, write.committedAt != nil, write.activity.exists else {
        // Pending: each of its rows is censored at the run's end.
        for _ in 0..<rows { tally.censored.append((endTime - write.editedAt).nanoseconds) }
        continue
      }
      if write.kind == .delete && storeIsPublic[write.store.index] {
        publicDeletes.append(Int32(index))
      } else {
        committedByZone[zone].append(Int32(index))
      }
    }
    // A public delete never reaches a reader: every row of it is hidden or not visible.
    for index in publicDeletes {
      let write = writes[Int(index)]
      let zone = Int(storeZone[write.store.index])
      guard !hidden.isEmpty else {
        tally.notVisibleRows += zoneStores[zone].count - Int(sameDevice[write.store.index])
        continue
      }
      let writer = storeDevice[write.store.index]
      for observer in zoneStores[zone] where storeDevice[observer.index] != writer {
        if isHidden(observer, write.object) { tally.hiddenRows += 1 } else { tally.notVisibleRows += 1 }
      }
    }
    for zone in committedByZone.indices where !committedByZone[zone].isEmpty {
      tallyZone(
        zone, writes: committedByZone[zone], into: &tally, scratch: &perDevice, threads: threads,
        minimumShare: minimumShare)
    }
    return tally
  }

  /// Per store, how many stores of its zone its device has (itself included): the rows of a
  /// write in that store are its zone's stores less these. `perDevice` is zeros, and left so.
  func storesOfSameDevice(scratch perDevice: inout [Int32]) -> [Int32] {
    var result = [Int32](repeating: 0, count: storeDevice.count)
    for stores in zoneStores {
      for store in stores { perDevice[storeDevice[store.index].index] += 1 }
      for store in stores { result[store.index] = perDevice[storeDevice[store.index].index] }
      for store in stores { perDevice[storeDevice[store.index].index] = 0 }
    }
    return result
  }

  /// Whether an import left `object` out of `store` for its newer model version.
  @inline(__always)
  func isHidden(_ store: StoreID, _ object: ObjectID) -> Bool {
    !hidden.isEmpty && hidden.contains(Int64(store.raw) << 32 | Int64(object.raw))
  }

  /// The rows of one zone's committed writes (indices into `writes`), observer by observer.
  /// `perDevice` is zeros per device, and left so.
  func tallyZone(
    _ zone: Int, writes indices: [Int32], into tally: inout RowTally, scratch perDevice: inout [Int32],
    threads: Int = 1,
    minimumShare: Int = observersPerShare
  ) {
    // The writes in sequence order, as flat columns.
    let order = indices.sorted { (writes[Int($0)].sequence, $0) < (writes[Int($1)].sequence, $1) }
    let count = order.count
    var sequence = [Int32](repeating: 0, count: count)
    var edited = [Int64](repeating: 0, count: count)
    var committed = [Int64](repeating: 0, count: count)
    var writer = [Int32](repeating: 0, count: count)
    var objects = [ObjectID](repeating: ObjectID(0), count: count)
    var exportStages = [(save: Int64, schedule: Int64, upload: Int64)](repeating: (0, 0, 0), count: count)
    for (slot, index) in order.enumerated() {
      let write = writes[Int(index)]
      let committedAt = write.committedAt!
      let saved = write.savedAt!
      let exportStart = activities[write.activity.index].startedAt ?? committedAt
      sequence[slot] = write.sequence
      edited[slot] = write.editedAt.nanoseconds
      committed[slot] = committedAt.nanoseconds
      writer[slot] = storeDevice[write.store.index].raw
      objects[slot] = write.object
      exportStages[slot] = (
        (saved - write.editedAt).nanoseconds, (exportStart - saved).nanoseconds, (committedAt - exportStart).nanoseconds
      )
    }
    let columns = ZoneColumns(
      sequence: sequence, edited: edited, committed: committed, writer: writer, objects: objects)
    // The devices that wrote in the zone (marked 1): an observer that did not skips none of its rows.
    for device in writer { perDevice[Int(device)] = 1 }
    defer { for device in writer { perDevice[Int(device)] = 0 } }
    // Per write, how many observers saw it: its export stages count once for each.
    var seenBy = [Int64](repeating: 0, count: count)
    let observers = zoneStores[zone]
    // Observers are independent: on several threads, each takes a contiguous share and its sums
    // are added in share order, so the tally (its exact latencies' order too) is the same.
    let shares = min(max(1, threads), observers.count / max(1, minimumShare))
    if shares <= 1 {
      tallyObservers(
        observers[...], columns, perDevice: perDevice, into: &tally, seenBy: &seenBy, reach: &observerReach)
    } else {
      let results = ResultStore<(RowTally, [Int64])>(count: shares)
      let recorder = UncheckedRecorder(self)
      let marked = perDevice
      DispatchQueue.concurrentPerform(iterations: shares) { share in
        let range = observers.count * share / shares..<observers.count * (share + 1) / shares
        var part = RowTally()
        var seen = [Int64](repeating: 0, count: count)
        var reach = ObserverReach()
        recorder.value.tallyObservers(
          observers[range], columns, perDevice: marked, into: &part, seenBy: &seen, reach: &reach)
        results.set(share, (part, seen))
      }
      for (part, seen) in results.results() {
        tally.hiddenRows += part.hiddenRows
        tally.notVisibleRows += part.notVisibleRows
        tally.censored.append(contentsOf: part.censored)
        for stage in tally.stageSums.indices { tally.stageSums[stage] += part.stageSums[stage] }
        tally.latencies.append(contentsOf: part.latencies)
        for slot in 0..<count { seenBy[slot] += seen[slot] }
      }
    }
    for slot in 0..<count where seenBy[slot] > 0 {
      tally.stageSums[0] += Int128(exportStages[slot].save) * Int128(seenBy[slot])
      tally.stageSums[1] += Int128(exportStages[slot].schedule) * Int128(seenBy[slot])
      tally.stageSums[2] += Int128(exportStages[slot].upload) * Int128(seenBy[slot])
    }
  }

  /// Fewest observers a thread's share of a zone holds: below, the zone is tallied on one.
  static let observersPerShare = 4_096

  /// The rows of `observers` (a share of the zone's) of the writes in `columns`, into `tally`,
  /// counting who saw each write into `seenBy`.
  func tallyObservers(
    _ observers: ArraySlice<StoreID>, _ columns: ZoneColumns, perDevice: [Int32], into tally: inout RowTally,
    seenBy: inout [Int64], reach stored: inout ObserverReach
  ) {
    let count = columns.sequence.count
    let (sequence, edited, committed) = (columns.sequence, columns.edited, columns.committed)
    let (writer, objects) = (columns.writer, columns.objects)
    // Per observer: its imports' running maximum token, request, start and end; its UI
    // refreshes' running maximum token and time. Kept across observers, zones and parts for
    // their capacity (`ObserverReach`), and moved into a local for the walk.
    var reach = ObserverReach()
    swap(&reach, &stored)
    defer { swap(&reach, &stored) }
    let checksHidden = !hidden.isEmpty
    let end = endTime.nanoseconds
    // An observer's latencies and the writes' viewers, written through buffers: an array's
    // append or element update checks its uniqueness each time, 24 G times at a million installs.
    let latencies = UnsafeMutableBufferPointer<Int64>.allocate(capacity: max(1, count))
    defer { latencies.deallocate() }
    seenBy.withUnsafeMutableBufferPointer { seenBy in
      for observer in observers {
        var latencyCount = 0
        reach.empty()
        var (highestImported, highestVisible) = (Int32.min, Int32.min)
        observerLog.forEach(store: observer) { entry in
          switch entry {
          case .page(let page):
            highestImported = max(highestImported, page.token)
            let activity = activities[page.activity.index]
            reach.importReach.append(highestImported)
            reach.importRequested.append(activity.requestedAt.nanoseconds)
            reach.importStarted.append(activity.startedAt?.nanoseconds ?? .min)
            reach.importEnded.append(page.at.nanoseconds)
          case .refresh(let refresh):
            highestVisible = max(highestVisible, refresh.token)
            reach.visibleReach.append(highestVisible)
            reach.visibleAt.append(refresh.at.nanoseconds)
          }
        }
        let device = storeDevice[observer.index].raw
        var (imported, seen) = (0, 0)
        var (notify, importSchedule, download, ui) = (Int128(0), Int128(0), Int128(0), Int128(0))
        // Past its last import or UI refresh, every later row of an observer that wrote nothing here
        // (and has no hidden records) is not visible: counted at once.
        let countsTheRest = !checksHidden && perDevice[Int(device)] == 0
        for slot in 0..<count where writer[slot] != device {
          if checksHidden && isHidden(observer, objects[slot]) {
            tally.hiddenRows += 1
            continue
          }
          let token = sequence[slot]
          while imported < reach.importReach.count && reach.importReach[imported] < token { imported += 1 }
          while seen < reach.visibleReach.count && reach.visibleReach[seen] < token { seen += 1 }
          guard imported < reach.importReach.count, seen < reach.visibleReach.count else {
            if countsTheRest {
              tally.notVisibleRows += count - slot
              for rest in slot..<count { tally.censored.append(end - edited[rest]) }
              break
            }
            tally.notVisibleRows += 1
            tally.censored.append(end - edited[slot])
            continue
          }
          let notified = max(committed[slot], reach.importRequested[imported])
          let importStart = max(notified, reach.importStarted[imported])
          notify += Int128(notified - committed[slot])
          importSchedule += Int128(importStart - notified)
          download += Int128(reach.importEnded[imported] - importStart)
          ui += Int128(reach.visibleAt[seen] - reach.importEnded[imported])
          seenBy[slot] += 1
          latencies[latencyCount] = reach.visibleAt[seen] - edited[slot]
          latencyCount += 1
        }
        // Four sums, not a loop over an array of them: that array was allocated per observer.
        tally.stageSums[3] += notify
        tally.stageSums[4] += importSchedule
        tally.stageSums[5] += download
        tally.stageSums[6] += ui
        tally.latencies.append(contentsOf: UnsafeBufferPointer(rebasing: latencies[0..<latencyCount]))
      }
    }
  }
}
