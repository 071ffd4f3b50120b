import SimKernel

/// One transition of an import activity's life after dasd starts it (spec §8), as
/// `ExportTransition` is for an export: the import's documented path, taken by
/// `World.importStep` alone.
enum ImportTransition: Int, CaseIterable, ReactionTransitions {
  case offlineAtStart, tokenExpired, firstPage, nextPage, lastPage, waitForRetry, offline, syncTurnedOff
  case resetDeclared, stallDeclared, recreateZoneDeclared

  /// (from, input, to, what happens, source)
  var row: ActivityTransitionRow {
    switch self {
    case .offlineAtStart:
      (
        "started", "the device is offline", "finished (failed)", "a new import waits on the network policy",
        "[A] CKSyncEngine"
      )
    case .tokenExpired:
      (
        "started", "the store's token expired", "fetching page 1",
        "changeTokenExpired: the store resets and fetches the whole zone", "[A] CKError changeTokenExpired"
      )
    case .firstPage:
      (
        "started", "changes since the store's token", "fetching page 1",
        "the server's snapshot token is taken; records changed since the store's token are queued",
        "[A] CKFetchRecordZoneChangesOperation"
      )
    case .nextPage:
      (
        "fetching page n", "page fetched, more pages", "fetching page n+1",
        "the page's records are merged; a fetchedResults UI shows them", "[C] eczema-helper #713"
      )
    case .lastPage:
      (
        "fetching page n", "page fetched, last page", "finished (succeeded)",
        "the store holds the snapshot token; the UI refreshes", "[A] TN3163"
      )
    case .waitForRetry:
      (
        "fetching page n", "retry-after or back-off", "finished (failed)",
        "a new import waits, under the fault's cause, until the stated time", "[A] TN3162"
      )
    case .offline:
      (
        "fetching page n", "networkUnavailable", "finished (failed)", "a new import waits on the network policy",
        "[A] CKError networkUnavailable"
      )
    case .syncTurnedOff:
      ("fetching page n", "sync turned off", "finished (failed)", "the page is not applied", "[HowTo] toggling sync")
    case .resetDeclared:
      (
        "fetching page n", "a fault declaring a reset (zoneNotFound)", "finished (failed)",
        "the store resets: a new import fetches the whole zone from an empty token", "[A] CKError zoneNotFound"
      )
    case .stallDeclared:
      (
        "fetching page n", "a fault declaring a stall (accountTemporarilyUnavailable)", "finished (failed)",
        "the store asks for nothing, export or import, until the stated time, under the fault's cause",
        "[A] CKError accountTemporarilyUnavailable"
      )
    case .recreateZoneDeclared:
      (
        "fetching page n", "a fault declaring a zone recreation", "finished (failed)",
        "a new import and a new export are asked for: the export saves the zone first",
        "[A] sample-cloudkit-sync-engine handleSentRecordZoneChanges"
      )
    }
  }

  /// The clients that take the transition: both fetch through the same pages.
  var clients: String { "both" }
}

/// What moves an import: dasd started it, or the server answered its page.
enum ImportInput {
  case started
  case answered
}

extension ClientHost {
  /// The import's one transition function: from where `activity` is, on `input`.
  mutating func importStep(_ activity: ActivityID, _ input: ImportInput, sim: inout Simulation<ModelEvent>) {
    switch input {
    case .started: importStarted(activity, sim: &sim)
    case .answered: importAnswered(activity, sim: &sim)
    }
  }

  /// `importStep` when dasd starts the import.
  mutating func importStarted(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let store = scheduler.activities[activity.index].store
    guard devices[owner(of: store).index].online else {
      importTook(.offlineAtStart)
      finishRun(activity, succeeded: false, sim: &sim)
      requestImport(store, trigger: .importAgain, sim: &sim)
      return
    }
    let zone = clients.stores[store.index].zone.index
    if tokenExpired(store, at: sim.now) {
      // changeTokenExpired: reset, then fetch the whole zone from a nil token. [A] CKError.h
      importTook(.tokenExpired)
      report { $0.observe(.cloudError(store: store, error: .changeTokenExpired, retryAfter: nil, at: sim.now)) }
      resetSync(store, reason: .tokenExpired, sim: &sim)
    }
    let snapshot = server.zones[zone].changeCount
    clients.runs[activity.index].snapshotToken = snapshot
    clients.runs[activity.index].snapshotAt = server.zones[zone].lastChangeAt
    clients.runs[activity.index].fromEmptyToken = !clients.stores[store.index].holdsToken
    while clients.importQueues.count <= activity.index {
      clients.importQueues.append([])
      clients.importPageTokens.append([])
    }
    let after = clients.stores[store.index].importedToken
    let fromIndex = importsFromIndex(store)
    let records: Int
    let bytes: Int64
    if fromIndex {
      (records, bytes) = sizeImportFromIndex(activity, zone: zone, after: after)
    } else {
      // Filled in its column slot, keeping its capacity; `changedRecords` never touches
      // `importQueues` itself (growing it would move the queue being written).
      var hidden: [ObjectID] = []
      let version = deviceTraits[traitsIndex(of: owner(of: store))].modelVersion
      bytes = changedRecords(
        zone: zone, after: after, upTo: snapshot, maxVersion: version, into: &clients.importQueues[activity.index],
        hidden: &hidden)
      for object in hidden { report { $0.observe(.hiddenRecord(store: store, object: object)) } }
      records = clients.importQueues[activity.index].count
    }
    clients.runs[activity.index].records = Int32(records)
    clients.runs[activity.index].bytes = bytes
    let pageSize = max(1, clients.settings.server.importPageSize)
    // A public-database poll queries each record type (and CDMR) separately. [W] WWDC20
    let minimum = server.zones[zone].scope == .public ? server.publicQueriesPerPoll : 1
    clients.runs[activity.index].pagesLeft = Int32(max(minimum, (records + pageSize - 1) / pageSize))
    clients.runs[activity.index].pagesTotal = clients.runs[activity.index].pagesLeft
    if fromIndex {
      listPageTokensFromIndex(activity, zone: zone, after: after, upTo: snapshot)
    } else {
      listPageTokens(activity, zone: zone, after: after, upTo: snapshot)
    }
    if isReplayed(store) { noteReplayQuery(store, activity, after: after, snapshot: snapshot) }
    importTook(.firstPage)
    scheduleNextPage(activity, sim: &sim)
  }

  /// `importStep` on the server's answer to the current page.
  mutating func importAnswered(_ activity: ActivityID, sim: inout Simulation<ModelEvent>) {
    let store = scheduler.activities[activity.index].store
    if clients.stores[store.index].disabled {
      // Sync was turned off: the page is not applied and no further page is fetched.
      importTook(.syncTurnedOff)
      finishRun(activity, succeeded: false, sim: &sim)
      return
    }
    switch generalVerdict(activity, at: sim.now) {
    case .faulted(let failure):
      // The import ends and releases its group, nothing of the page applied; what follows is the
      // fault's declared reaction (a new import after a retry's wait fetches from the store's
      // token: the pages applied so far are fetched again, as a new fetch-changes would).
      importTook(ImportTransition(failure.reaction))
      finishRun(activity, succeeded: false, sim: &sim)
      react(to: failure, of: activity, sim: &sim)
      return
    case .accepted, .resend, .failed, .partlySaved:
      break  // only a modify request is resent or refused by its records
    }
    let page = nextPage(activity)
    if isReplayed(store) {
      logPage(activity, store, first: page.first, records: page.records, at: sim.now)
    } else {
      applyPage(store, clients.importQueues[activity.index][page.first..<page.first + page.records], at: sim.now)
    }
    report { $0.observeRequest(store: store, upload: false, records: Int32(page.records), bytes: page.bytes, at: sim.now) }
    clients.runs[activity.index].pagesLeft -= 1
    if clients.runs[activity.index].pagesLeft > 0 {
      importTook(.nextPage)
      pageApplied(activity, records: page.records, sim: &sim)
      scheduleNextPage(activity, sim: &sim)
      return
    }
    importTook(.lastPage)
    // The query's page bounds are read by its pages only: a reader held its last import's for the
    // rest of the run (22.5 MB of 90,000 readers' heap at the end of a day, massif; the peak RSS
    // there did not move measurably). The next import notes its own.
    if isReplayed(store) { clients.replayQueries[store.index].pageTokens = [] }
    let run = clients.runs[activity.index]
    finishImportToken(store, upTo: run.snapshotToken, changedAt: run.snapshotAt)
    // A reset during the import cleared `fromEmptyToken`: its token belongs to the old history.
    if run.fromEmptyToken { clients.stores[store.index].holdsToken = true }
    report { $0.observeImported(
      store: store, activity: logID(activity), token: run.snapshotToken, records: run.records, at: sim.now) }
    finishRun(activity, succeeded: true, sim: &sim)
    importFinishedUI(store, sim: &sim)
    // Only an import from the empty token ends a reset: one begun before it brought too little.
    if run.fromEmptyToken { endResetIfNeeded(store, sim: &sim) }
    if deviceTraits[traitsIndex(of: owner(of: store))].app.deduplicate { deduplicate(store, sim: &sim) }
  }

  /// Counts an import transition taken (debug builds only: `transitionsTaken`).
  @inline(__always)
  mutating func importTook(_ transition: ImportTransition) {
    #if DEBUG
      clients.transitionsTaken[ExportTransition.allCases.count + transition.rawValue] += 1
    #endif
  }
}
