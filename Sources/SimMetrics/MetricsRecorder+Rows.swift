import SimKernel
import SimModel

extension MetricsRecorder {
  /// Every (write, other device with access) row, in write then observer-store order.
  public func latencyRows() -> [LatencyRow] {
    var rows: [LatencyRow] = []
    rows.reserveCapacity(writes.count)
    forEachLatencyRow { rows.append($0) }
    return rows
  }

  /// Calls `body` with every row, in `latencyRows()` order, without keeping them: a large run has
  /// millions (10,000 public-database readers × a day's posts), and the summary and latency.csv
  /// each need one pass.
  public func forEachLatencyRow(_ body: (LatencyRow) -> Void) {
    let ids = writeIDs
    var source = rowSource()
    for (index, write) in writes.enumerated() {
      let zone = storeZone[write.store.index]
      guard zone >= 0 else { continue }
      let writer = source.storeDevice[write.store.index]
      for observer in zoneStores[Int(zone)] where source.storeDevice[observer.index] != writer {
        body(source.row(for: write, id: WriteID(Int(ids[index])), zone: ZoneID(Int(zone)), observer: observer))
      }
    }
  }

  /// The rows of the write at `index` in `writes` alone (a watched write's, `WriteWatch`), from
  /// `source` (`rowSource()`, built once for all of a run's watches).
  func rows(ofWriteAt index: Int, id: WriteID, source: inout RowSource) -> [LatencyRow] {
    let write = writes[index]
    let zone = storeZone[write.store.index]
    guard zone >= 0 else { return [] }
    let writer = source.storeDevice[write.store.index]
    return zoneStores[Int(zone)].filter { source.storeDevice[$0.index] != writer }.map { observer in
      source.row(for: write, id: id, zone: ZoneID(Int(zone)), observer: observer)
    }
  }

  /// What building rows reads, taken out of the recorder once.
  func rowSource() -> RowSource {
    var importsByStore = [[Int]](repeating: [], count: storeDevice.count)
    var lastExport = [Int](repeating: -1, count: storeDevice.count)
    for (index, activity) in activities.enumerated() {
      if activity.kind == .import {
        importsByStore[activity.store.index].append(index)
      } else {
        lastExport[activity.store.index] = index
      }
    }
    var imports: [[ObserverLog.Page]] = []
    var visibility: [[ObserverLog.Refresh]] = []
    for store in 0..<observerLog.storeCount {
      let entries = observerLog.entries(of: StoreID(store))
      imports.append(entries.pages)
      visibility.append(entries.refreshes)
    }
    return RowSource(
      storeDevice: storeDevice, imports: imports, visibility: visibility, activities: activities,
      blockedIntervals: blockedIntervals, hidden: hidden,
      reached: TokensReached(imports: imports, visibility: visibility),
      end: EndStates(
        at: endTime, importsByStore: importsByStore, lastExport: lastExport, lastPush: lastPush,
        lastAppState: lastAppState,
        lastOnline: lastOnline, storeIsPublic: storeIsPublic, storeDisabled: storeDisabled, policyNames: policyNames))
  }

  /// Per store, the highest token its imports (and its UI) had reached after each one, so that
  /// the first import to reach a write's token is found by search: the running maximum first
  /// reaches a token exactly where the first import at or above it is (a reset can make the
  /// tokens themselves fall back).
  ///
  /// Rows come in write order, whose tokens mostly grow, so each store's search starts where its
  /// last one ended and gallops from there (a binary search per row was a fiftieth of a fleet's
  /// run).
  struct TokensReached {
    var imported: [[Int32]]
    var visible: [[Int32]]
    var importHints: [Int]
    var visibleHints: [Int]

    init(imports: [[ObserverLog.Page]], visibility: [[ObserverLog.Refresh]]) {
      imported = imports.map { Self.runningMaximum($0.map(\.token)) }
      visible = visibility.map { Self.runningMaximum($0.map(\.token)) }
      importHints = [Int](repeating: 0, count: imported.count)
      visibleHints = [Int](repeating: 0, count: visible.count)
    }

    static func runningMaximum(_ tokens: [Int32]) -> [Int32] {
      var highest = Int32.min
      return tokens.map {
        highest = max(highest, $0)
        return highest
      }
    }

    /// The first import of `store` whose running maximum is at least `token`, or nil.
    mutating func firstImport(reaching token: Int32, store: StoreID) -> Int? {
      Self.first(reaching: token, in: imported[store.index], hint: &importHints[store.index])
    }

    /// The first UI refresh of `store` whose running maximum is at least `token`, or nil.
    mutating func firstVisible(reaching token: Int32, store: StoreID) -> Int? {
      Self.first(reaching: token, in: visible[store.index], hint: &visibleHints[store.index])
    }

    /// The first position whose running maximum is at least `token`, or nil; the search starts at
    /// `hint` (the last answer), which is then set to this one.
    static func first(reaching token: Int32, in maxima: [Int32], hint: inout Int) -> Int? {
      let n = maxima.count
      guard n > 0 else { return nil }
      let start = min(hint, n - 1)
      var low: Int
      var high: Int  // the answer is in low...high, where n means none
      if maxima[start] >= token {
        if start == 0 || maxima[start - 1] < token { return start }
        (low, high) = (0, start - 1)
      } else {
        // Everything up to `start` is below `token`: gallop ahead.
        low = start + 1
        var step = 1
        while low + step - 1 < n && maxima[low + step - 1] < token {
          low += step
          step *= 2
        }
        high = min(n, low + step - 1)
      }
      while low < high {
        let mid = (low + high) / 2
        if maxima[mid] >= token { high = mid } else { low = mid + 1 }
      }
      hint = low
      return low < n ? low : nil
    }
  }

  var writeIDs: [Int32] {
    var ids = [Int32](repeating: 0, count: writes.count)
    for (id, index) in writeIndex.enumerated() where index >= 0 { ids[Int(index)] = Int32(id) }
    return ids
  }

  /// What building a row reads, taken out of the recorder once: reading the class's arrays row
  /// by row paid an exclusivity check each time, and a large run has millions of rows.
  struct RowSource {
    let storeDevice: [DeviceID]
    let imports: [[ObserverLog.Page]]
    let visibility: [[ObserverLog.Refresh]]
    let activities: [ActivityRecord]
    let blockedIntervals: [Int32: [BlockedInterval]]
    let hidden: Set<Int64>
    var reached: TokensReached
    let end: EndStates

    mutating func row(for write: WriteRecord, id: WriteID, zone: ZoneID, observer: StoreID) -> LatencyRow {
      var row = LatencyRow(
        write: id, writer: storeDevice[write.store.index], observer: storeDevice[observer.index],
        kind: write.kind, outcome: .pending, editedAt: write.editedAt, committedAt: write.committedAt, visibleAt: nil)
      row.zone = zone
      row.object = write.object
      row.observerStore = observer
      row.writerStore = write.store
      if write.superseded {
        row.outcome = .supersededLocally
        return row
      }
      if write.lostUpdate {
        row.outcome = .lostUpdate
        return row
      }
      if write.lost {
        row.outcome = .lost
        if let saved = write.savedAt {
          row.stages.save = saved - write.editedAt
          // Its export waited on the store's exports until the loss (`exportSplit`).
          row.exportActivity = Int32(end.lastExport[write.store.index])
        }
        stuck(&row, write.savedAt == nil ? 0 : 1, at: write.savedAt, cause: write.lossReason?.rawValue ?? "lost")
        return row
      }
      guard let saved = write.savedAt else {
        stuck(&row, 0, at: nil, cause: "notSaved")
        return row
      }
      row.stages.save = saved - write.editedAt
      guard let committed = write.committedAt, write.activity.exists else {
        stuckBeforeExport(&row, store: write.store, saved: saved)
        return row
      }
      let exportStart = activities[write.activity.index].startedAt ?? committed
      row.stages.exportSchedule = exportStart - saved
      row.stages.upload = committed - exportStart
      row.exportActivity = write.activity.raw
      if !hidden.isEmpty && hidden.contains(Int64(observer.raw) << 32 | Int64(write.object.raw)) {
        row.outcome = .hidden
        stuck(&row, 5, at: committed, cause: "modelVersion", fixed: 3)
        return row
      }
      row.outcome = .notVisible
      // A public-database delete never reaches a reader (no tombstone to fetch): a ghost, not
      // waiting on any push, poll or import. Its notify time has no cause split.
      if write.kind == .delete && end.storeIsPublic[write.store.index] {
        stuck(&row, 3, at: committed, cause: Self.ghost)
        return row
      }
      guard let importIndex = reached.firstImport(reaching: write.sequence, store: observer)
      else {
        stuckBeforeImport(&row, observer: observer, committed: committed)
        return row
      }
      let imported = imports[observer.index][importIndex]
      let notified = max(committed, activities[imported.activity.index].requestedAt)
      let importStart = max(notified, activities[imported.activity.index].startedAt ?? notified)
      row.stages.notify = notified - committed
      row.stages.importSchedule = importStart - notified
      row.stages.download = imported.at - importStart
      row.importActivity = imported.activity.raw
      guard let seenIndex = reached.firstVisible(reaching: write.sequence, store: observer) else {
        let state = end.lastAppState[storeDevice[observer.index].index]
        stuck(&row, 6, at: imported.at, cause: state == .foreground ? "uiRefresh" : "notInForeground")
        return row
      }
      let seen = visibility[observer.index][seenIndex]
      row.stages.ui = seen.at - imported.at
      row.knownStages = 7
      row.outcome = .visible
      row.visibleAt = seen.at
      return row
    }

    /// The stuck cause of a public-database delete that never reaches a reader.
    static let ghost = "ghost"

    /// Marks `row` stuck in stage `stage`, which began at `since` (the edit when nil), until the end
    /// of the run; the stages before it (`fixed`, default all of them) are already set.
    func stuck(_ row: inout LatencyRow, _ stage: Int, at since: SimTime?, cause: String, fixed: Int? = nil) {
      let start = since ?? row.editedAt
      row.stages[stage] = max(.zero, end.at - start)
      for skipped in (fixed ?? stage)..<stage { row.stages[skipped] = .zero }
      row.knownStages = stage + 1
      row.stuckStage = LatencyRow.stageNames[stage]
      row.stuckCause = cause
    }

    /// A committed row whose observer had not imported it: stuck waiting to be told (notify),
    /// for its import to be scheduled, or in its import.
    func stuckBeforeImport(_ row: inout LatencyRow, observer: StoreID, committed: SimTime) {
      let device = storeDevice[observer.index].index
      let imports = end.importsByStore[observer.index]
      // The observer's newest import, where the row waits now: one requested since the commit,
      // or one requested before it that has not started yet (or started after it), which will
      // fetch the row when it runs (a rate-limited import asked hours ago), so the row is held
      // by that import, not by a push, with the split it would get were it visible a moment later.
      guard let last = imports.last else {
        stuck(&row, 3, at: committed, cause: notifyCause(observer: observer, device: device))
        return
      }
      let activity = activities[last]
      if activity.requestedAt < committed {
        let fetchesTheRow =
          activity.cancelled == nil && activity.finishedAt == nil
          && (activity.startedAt.map { $0 >= committed } ?? true)
        guard fetchesTheRow else {
          stuck(&row, 3, at: committed, cause: notifyCause(observer: observer, device: device))
          return
        }
      }
      let notified = max(committed, activity.requestedAt)
      row.stages.notify = notified - committed
      row.importActivity = Int32(last)
      if let started = activity.startedAt, activity.finishedAt == nil {
        row.stages.importSchedule = started - notified
        stuck(&row, 5, at: started, cause: "importing")
        return
      }
      let cause: String
      if let reason = activity.cancelled {
        cause = reason.rawValue
      } else if activity.finishedAt != nil {
        cause =
          end.storeDisabled[observer.index] ? "storeDisabled" : activity.succeeded ? "notFetched" : "importFailed"
      } else if let policy = blockingAtEnd(last) {
        cause = policy
      } else {
        cause = "decision"
      }
      stuck(&row, 4, at: notified, cause: cause)
    }

    /// A saved row not yet committed: stuck in exportSchedule, held by its store's newest export
    /// (and the chain before it, whose blocked time its cause columns carry), named as an
    /// import's hold is: a policy or wait cause blocking it at the end, `exporting`,
    /// `exportFailed`, `decision`, a cancellation's reason, `storeDisabled` (error 134410), or
    /// `notRequested` when no export was asked for since the save.
    func stuckBeforeExport(_ row: inout LatencyRow, store: StoreID, saved: SimTime) {
      let last = end.lastExport[store.index]
      let cause: String
      if end.storeDisabled[store.index] {
        cause = "storeDisabled"
      } else if last < 0 || (activities[last].finishedAt ?? end.at) < saved {
        cause = "notRequested"
      } else {
        let activity = activities[last]
        if let reason = activity.cancelled {
          cause = reason.rawValue
        } else if let policy = blockingAtEnd(last) {
          cause = policy
        } else if activity.startedAt != nil && activity.finishedAt == nil {
          cause = "exporting"
        } else if activity.finishedAt != nil {
          cause = activity.succeeded ? "notRequested" : "exportFailed"
        } else {
          cause = "decision"
        }
      }
      if last >= 0 { row.exportActivity = Int32(last) }
      stuck(&row, 1, at: saved, cause: cause)
    }

    /// The policy or wait cause still blocking the activity at `index` when the run ended, if one is.
    func blockingAtEnd(_ index: Int) -> String? {
      guard let open = blockedIntervals[Int32(index)]?.last, open.to == end.at else { return nil }
      return end.policyNames[Int(open.policy)]
    }

    /// Why no import was asked for since the commit: the observer's state at the end.
    func notifyCause(observer: StoreID, device: Int) -> String {
      if end.storeDisabled[observer.index] { return "storeDisabled" }
      if !end.lastOnline[device] { return "offline" }
      if end.storeIsPublic[observer.index] { return "pollWait" }
      switch end.lastPush[device] {
      case .held: return "pushHeld"
      case .deferred: return "pushDeferred"
      case .stored: return "pushStored"
      case .withheld: return "pushWithheld"
      case .dropped, .discarded: return end.lastAppState[device] == .notRunning ? "notRunning" : "pushLost"
      default: return end.lastAppState[device] == .notRunning ? "notRunning" : "pushInFlight"
      }
    }
  }

  /// What the observers were doing when the run ended, for rows that never became visible.
  struct EndStates {
    let at: SimTime
    let importsByStore: [[Int]]
    /// Each store's newest export (-1 for none): what holds its saved, uncommitted writes.
    let lastExport: [Int]
    let lastPush: [PushEvent?]
    let lastAppState: [AppState?]
    let lastOnline: [Bool]
    let storeIsPublic: [Bool]
    let storeDisabled: [Bool]
    let policyNames: [String]
  }
}

/// Where every write ended up (spec §10 conservation): the four counts add up to all writes.
public struct WriteAccounting: Equatable, Sendable {
  /// Committed at the server and not lost to a device that had not seen it.
  public var committed = 0
  /// Committed, then overwritten by a device that had not seen it.
  public var lostUpdates = 0
  /// Replaced on its own device before export: never reached the server.
  public var supersededLocally = 0
  /// Unsaved, or saved and not yet committed, when the run ended.
  public var pending = 0
  /// Lost on the device (saved during a reset without the guard, or a removed store).
  public var lost = 0

  public var total: Int { committed + lostUpdates + supersededLocally + pending + lost }
}

extension MetricsRecorder {
  /// Classifies every write; each lands in exactly one class.
  public func writeAccounting() -> WriteAccounting {
    var accounting = WriteAccounting()
    for write in writes {
      if write.superseded {
        accounting.supersededLocally += 1
      } else if write.lost {
        accounting.lost += 1
      } else if write.committedAt == nil {
        accounting.pending += 1
      } else if write.lostUpdate {
        accounting.lostUpdates += 1
      } else {
        accounting.committed += 1
      }
    }
    return accounting
  }
}

extension MetricsRecorder {
  /// Each write's device, edit time and commit time (nil if never committed; superseded writes
  /// are left out, as they never commit).
  package func writesForTimeline() -> [(device: DeviceID, editedAt: SimTime, committedAt: SimTime?)] {
    writes.filter { !$0.superseded }.map { (storeDevice[$0.store.index], $0.editedAt, $0.committedAt) }
  }
}

extension MetricsRecorder {
  /// The row's notify stage split by cause (`LatencyRow.notifyCauseNames`), summing exactly to
  /// it; nil when the row never reached the stage.
  ///
  /// Read from the observer device's push events between the commit and the import's request:
  /// until the push arrives it is in transit (fan-out, and the hand-over's fixed delivery latency);
  /// then held, deferred or stored until it is delivered (a stored push's release is delivery
  /// again). A wait with no push at all is a poll's for the public database, the app's for a launch
  /// when it was not running, else an import the app asked for on its own; a ghost's is `ghost`.
  public func notifyCauses(_ row: LatencyRow) -> [SimDuration]? {
    guard row.knownStages > 3, let committed = row.committedAt else { return nil }
    var causes = [SimDuration](repeating: .zero, count: LatencyRow.notifyCauseNames.count)
    // A ghost (a public delete a reader never fetches) waits on nothing any sync could bring:
    // its whole notify is its own cause, so that the stage's identity holds on it too.
    if row.stuckCause == RowSource.ghost {
      causes[8] = row.stages.notify
      return causes
    }
    let notified = committed + row.stages.notify
    guard notified > committed else { return causes }
    enum State: Int { case transit = 0, held = 2, deferred = 3, stored = 4, withheld = 10, none = -1 }
    let device = row.observer.index
    let log = device < pushLog.count ? pushLog[device] : []
    var low = 0
    var high = log.count
    while low < high {
      let mid = (low + high) / 2
      if log[mid].at < committed { low = mid + 1 } else { high = mid }
    }
    var state = State.none
    var cursor = committed
    // The public database has no push: its wait is the next poll's.
    let waitsForPoll = row.observerStore.exists && storeIsPublic[row.observerStore.index]
    let observerStore = row.observerStore.index
    let disabledAt = observerStore < holdLog.disabledAt.count ? holdLog.disabledAt[observerStore] : nil
    /// How a span ends: its push delivered (the hand-over's latency is delivery), lost (the push
    /// never came: the wait was the no-push cause's), or neither yet.
    enum Ending { case delivered, lost, open }
    // A run of spans with no push on its way is booked once, by the app's state (a force-quit
    // receiver's row crosses hundreds of discarded pushes: a booking each made the million
    // import's audit 15x slower).
    var noPushFrom: SimTime?
    func flushNoPush() {
      guard let from = noPushFrom else { return }
      noPushFrom = nil
      let disabled = disabledAt.map { min(max($0, from), cursor) } ?? cursor
      holdLog.bookNoPush(from: from, to: disabled, store: row.observerStore, device: row.observer, into: &causes)
      causes[9] += cursor - disabled
    }
    /// Books [cursor, until) to `cause`, and the part after the observer's store stopped syncing
    /// (error 134410) to `storeDisabled`: nothing could tell it then, whatever the push did.
    func credit(_ cause: Int, _ until: SimTime) {
      flushNoPush()
      let disabled = disabledAt.map { min(max($0, cursor), until) } ?? until
      causes[cause] += disabled - cursor
      causes[9] += until - disabled
      cursor = until
    }
    func add(_ until: SimTime, _ ending: Ending = .open) {
      guard until > cursor else { return }
      switch (state, ending) {
      case (.transit, .delivered):
        // A push handed to a disabled store brings nothing: it has no delivery of its own (issue
        // 72: 14 rows of toggle-sync-broken carried 0.1 s of delivery for each later push).
        if let disabledAt, disabledAt < until {
          credit(0, until)
        } else {
          credit(0, until.advanced(by: SimDuration(nanoseconds: -min(until - cursor, pushDeliveryLatency).nanoseconds)))
          credit(1, until)
        }
      case (.transit, .lost), (.none, _):
        // No push on its way: the poll's for the public database; else by the app's state.
        guard !waitsForPoll else { return credit(6, until) }
        if noPushFrom == nil { noPushFrom = cursor }
        cursor = until
      case (.transit, .open): credit(0, until)
      default: credit(state.rawValue, until)
      }
    }
    // The log is in time order: stop at the first event after the notify stage (scanning on to
    // the end of the log made latency.csv quadratic in a long run: half of a 180-day run's time).
    // Only the push that is delivered has a delivery: one dropped or discarded lends the row no
    // time of its own (a force-quit receiver's 67 discarded pushes showed 6.5 s of delivery).
    for (event, at) in log[low...] {
      if at > notified { break }
      switch event {
      case .sent:
        if state == .none {
          add(at)
          state = .transit
        }
      case .coalesced: if state == .none { state = .transit }
      case .held, .deferred:
        // It reached the device, which holds it: the hand-over was done.
        add(at, .delivered)
        state = event == .held ? .held : .deferred
      case .stored:
        // Stored for an offline device: handed over at its release, not now.
        add(at)
        state = .stored
      case .delivered:
        if state == .stored {
          // A stored push is handed over again when the device is back online.
          let handOver = min(at - cursor, pushDeliveryLatency)
          add(at.advanced(by: SimDuration(nanoseconds: -handOver.nanoseconds)))
          state = .transit
          credit(1, at)
        } else {
          add(at, .delivered)
        }
        state = .none
      case .dropped, .discarded:
        add(at, .lost)
        state = .none
      case .withheld:
        // APNs keeps it back (the app not launched for a while): the wait is the withholding's,
        // its way to APNs included.
        if state == .transit { state = .withheld }
        add(at, .lost)
        state = .withheld
      }
    }
    add(notified)
    flushNoPush()
    return causes
  }
}
