import Foundation
import GtkKit
import Platform
import TouristModel
import Translation

/// Owns what lives as long as the process: settings, the store, the HTTP session, the window.
@MainActor
final class TouristApplication {
    let configuration: AppConfiguration
    let application: Application
    /// The user's settings, saved at every change; what pages get instead of the application.
    let userSettings: SettingsKeeper
    var settings: Settings { userSettings.current }
    /// The SoupSession of the searches, names and articles, so connections are reused.
    let http: SoupClient
    /// What the network monitor says; online until it answers (`watchNetwork`).
    let connectivity = Connectivity()
    /// Every photo transfer and search of every album waits here for a slot (open album first),
    /// and, offline, for the network. A host gets `photoConnections` transfers on the wire, and
    /// the open album 4 more waiting in the photo session's queue, where libsoup starts one the
    /// moment a connection is free instead of when the main thread next turns (which, while the
    /// grid was painted, took several times curl's handoff).
    private(set) lazy var downloads = DownloadScheduler(perHost: Self.photoConnections, total: 16, ahead: 4,
                                                        connectivity: connectivity, pauses: pauses)
    /// Hosts that asked the app to slow down (429): the albums' photos and searches wait for
    /// their pauses in `downloads`, and the viewer keeps the album's copy meanwhile.
    let pauses = HostPauses()
    /// The thread the photos' transfers run on: the main thread only hands each request over.
    private lazy var photoThread = LoopThread(name: "photo-transfers")
    /// The albums' photo transfers: a session of their own, run on the photos' thread.
    private(set) lazy var photoHTTP = SoupClient(userAgent: configuration.userAgent, maxConnections: 16,
                                                 maxConnectionsPerHost: UInt32(Self.photoConnections),
                                                 thread: photoThread)
    /// The viewer's large versions: a session of their own, never queued behind an album's
    /// photos, on the photos' thread. On the main thread's loop, sending the request of each →
    /// came before the frame that shows the next photo.
    private lazy var viewerHTTP = SoupClient(userAgent: configuration.userAgent, maxConnections: 4,
                                             maxConnectionsPerHost: 2, thread: photoThread)
    /// The map tiles: two connections at most, as OpenStreetMap's tile servers ask and as
    /// libshumate's own downloader does (the shared session allows 16 a host for searches).
    private lazy var tileHTTP = SoupClient(userAgent: configuration.userAgent, maxConnections: 2,
                                           maxConnectionsPerHost: 2)
    /// Parallel photo transfers to one host (what curl's `--parallel-max 8` floor uses too).
    private static let photoConnections = 8
    private var networkMonitor: NetworkMonitor?
    private var openedStore: Store?
    private var storeOpened = false
    /// The pins the map shows; the store opens for it once the first frame is painted, or
    /// earlier if input handled before that frame needs it.
    private(set) lazy var pinList: PinList = {
        let list = PinList(store: { [unowned self] in self.openStoreOnce() })
        list.onError = { Log.error($0) }
        // A dropped pin's album is fetched ahead and its place named, before it is opened.
        list.onAdded = { [unowned self] pin in
            self.albumLoaders.prefetch(pin)
            self.pinNamer.name(pin)
        }
        return list
    }()
    private(set) lazy var albumLoaders = AlbumLoaderRegistry(
        store: { [unowned self] in self.openStoreOnce() }, photoSource: { [unowned self] in self.makePhotoSource() },
        client: photoHTTP, photosPerAlbum: { [unowned self] in self.settings.photosPerAlbum }, downloads: downloads)
    /// Place search, with names in the user's languages, from OpenStreetMap's Nominatim or the
    /// server chosen in Preferences; `VT_GEOCODER_URL` wins over both (tests point it at the
    /// loopback service).
    private(set) lazy var geocoder = Geocoder(
        endpoint: geocoderEndpoint, client: http,
        languages: Localization.acceptLanguages(environment: configuration.environment), connectivity: connectivity)

    private var geocoderEndpoint: URL {
        configuration.geocoderOverride ?? PlaceNamesServer.searchEndpoint(for: settings.placeNamesServer)
            ?? Geocoder.defaultEndpoint
    }

    /// The place names server in Preferences changed: the next search or name asks it.
    func placeNamesServerChanged() {
        geocoder.endpoint = geocoderEndpoint
    }
    /// The photo viewer's large versions, fetched on demand into the cache folder.
    private(set) lazy var largePhotos = LargePhotos(
        directory: configuration.paths.cacheDirectory.appendingPathComponent("large-photos", isDirectory: true),
        client: viewerHTTP, connectivity: connectivity, pauses: pauses)
    /// Names pins after their places with the geocoder's reverse search, when the user looks at
    /// them: dropped, opened, or shown by the resting map or My Places.
    private(set) lazy var pinNamer: PinNamer = {
        let namer = PinNamer(store: { [unowned self] in self.openStoreOnce() }, connectivity: connectivity,
                             reverse: { [unowned self] coordinate in try await self.geocoder.reverse(coordinate) })
        namer.onError = { Log.error($0) }
        return namer
    }()
    /// Wikipedia's articles near each pin, from the wiki of the user's language; `VT_WIKIPEDIA_URL`
    /// names another MediaWiki API (tests point it at the loopback service).
    private(set) lazy var placeArticles: PlaceArticles = {
        let environment = configuration.environment
        let languages = (Localization.acceptLanguages(environment: environment) ?? "").split(separator: ",").map(String.init)
        let articles = PlaceArticles(
            store: { [unowned self] in self.openStoreOnce() }, client: http, languages: languages,
            endpointOverride: environment["VT_WIKIPEDIA_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) },
            connectivity: connectivity, pauses: pauses,
            imageDirectory: configuration.paths.cacheDirectory.appendingPathComponent("article-images", isDirectory: true))
        articles.onError = { Log.error($0) }
        return articles
    }()
    /// The Flickr key, kept in the user's keyring (the settings file only while none is available).
    private(set) lazy var flickrKey: FlickrKeyKeeper = {
        let keeper = FlickrKeyKeeper(
            settings: settings,
            // Translators: the name of the Flickr key's entry in the user's keyring (Passwords and Keys).
            store: Keyring(service: "flickr", label: tr("Flickr API key for Virtual Tourist")),
            update: { [unowned self] change in self.userSettings.update(change) })
        keeper.observe(by: self) { [unowned self] in self.flickrKeyChanged() }
        return keeper
    }()
    private var keyringFailureLogged = false
    private var window: MainWindow?
    /// Who follows the window's pages: the benchmark's trace with `VT_TRACE`, else nobody.
    private lazy var follower: PageFollower =
        TraceRecorder.start(downloads: downloads, store: { [unowned self] in self.openStoreOnce() }) ?? NoFollower()
    /// Why the settings file is not in use, told to the user once the window shows.
    private let settingsProblem: SettingsProblem?

    init(configuration: AppConfiguration) {
        self.configuration = configuration
        Trace.start(environment: configuration.environment)
        Trace.shared?.event("main")
        application = Application(id: AppConfiguration.applicationID)
        let settingsFile = SettingsFile(url: configuration.paths.settingsURL)
        let loaded = settingsFile.loadReporting()
        userSettings = SettingsKeeper(file: settingsFile, settings: loaded.settings)
        settingsProblem = loaded.problem
        if let problem = loaded.problem { Log.error(problem.localizedDescription) }
        http = SoupClient(userAgent: configuration.userAgent)
        Trace.shared?.event("configured")
        Application.setName("Virtual Tourist")
        userSettings.onSaveFailure = { [unowned self] text in self.window?.showProblem(text) }
        application.onActivate { [unowned self] in self.activate() }
        application.onStartup { Trace.shared?.event("startup") }
        application.onShutdown { [unowned self] in
            self.window?.shutdown()
            self.pinNamer.stop()
            self.pinList.commitPending()
            self.albumLoaders.closeAll()
            self.downloads.saves.flush()
            self.openedStore?.discardIncomingFiles()
        }
        // Logout and `kill` send SIGTERM: quit the normal way so the map position and pending
        // deletions are saved.
        for signal in [SIGTERM, SIGINT, SIGHUP] {
            MainLoop.onUnixSignal(signal) { [unowned self] in self.quit() }
        }
    }

    func run() -> Int32 { application.run() }

    /// Closes the window first, so the map position and pending deletions are saved.
    func quit() {
        window?.close()
        application.quit()
    }

    private func activate() {
        if let window {
            window.present()
            return
        }
        Trace.shared?.event("activated")
        let window = MainWindow(services: services)
        self.window = window
        Trace.shared?.event("window_built")
        window.present()
        Trace.shared?.eventAfterNextPaint("first_frame", of: window.window)
        Trace.shared?.recordFrames(of: window.window)
        // Nothing but the first frame before the first frame: the store opens (asked for by
        // the pins' read), and the pins are read, once it is painted.
        FrameClock.afterNextPaint(of: window.window) { [unowned self] in
            self.pinList.start()
            self.flickrKey.start()
            self.watchNetwork()
        }
        MapTour.startIfAsked(environment: configuration.environment, map: window.navigation.mapPage.map, window: window.window)
    }

    /// What the window and its pages use.
    private var services: WindowServices {
        WindowServices(application: application, configuration: configuration, settings: userSettings, tileHTTP: tileHTTP,
                       pins: pinList, albums: albumLoaders, geocoder: geocoder, largePhotos: largePhotos,
                       pinNamer: pinNamer, articles: placeArticles, flickrKey: flickrKey,
                       photoSource: { [unowned self] in self.makePhotoSource() }, follower: follower,
                       quit: { [unowned self] in self.quit() },
                       placeNamesServerChanged: { [unowned self] in self.placeNamesServerChanged() })
    }

    /// GIO's network monitor (the network portal inside Flatpak), created after the first frame:
    /// nothing before it goes to the network, and the portal's answer takes a D-Bus round trip.
    private func watchNetwork() {
        guard networkMonitor == nil else { return }
        let monitor = NetworkMonitor()
        monitor.onAvailabilityChange = { [unowned self] available in self.connectivity.update(isOnline: available) }
        // The portal's "unavailable" before its first answer is no answer: until it comes, the
        // network counts as there, as it did before the monitor was asked.
        if monitor.hasAnswered { connectivity.update(isOnline: monitor.isAvailable) }
        networkMonitor = monitor
    }

    /// Opens the store the first time it is asked for (telling the user what went wrong, if
    /// anything); the store, or nil when it cannot be opened.
    private func openStoreOnce() -> Store? {
        guard !storeOpened else { return openedStore }
        storeOpened = true
        var problems = settingsProblem.map { [$0.localizedDescription] } ?? []
        do {
            try configuration.paths.createDirectories()
            // The full-file check runs in the background (see repairInBackground).
            let opened = try Store.openRecovering(paths: configuration.paths, deferVerification: true)
            openedStore = opened.store
            if let text = Self.describe(movedAside: opened.movedAside, photos: opened.photosMovedAside) {
                problems.append(text)
            }
        } catch {
            // Translators: %1$@ is a folder, %2$@ the reason it cannot be used.
            problems.append(String(format: tr("Virtual Tourist cannot save pins in %1$@: %2$@. Pins cannot be dropped until the folder can be written to."),
                                   configuration.paths.dataDirectory.path, error.localizedDescription))
        }
        Trace.shared?.event("store_opened")
        if !problems.isEmpty { window?.showError(heading: tr("Saved Data Problem"), body: problems.joined(separator: "\n\n")) }
        if let openedStore { repairInBackground(openedStore) }
        return openedStore
    }

    /// What the user needs to know about files `Store.openRecovering` kept aside, and where they are.
    private static func describe(movedAside database: URL?, photos: URL?) -> String? {
        // Whole sentences, one per case, so that translations can order their parts freely.
        let (name, folder) = (database?.lastPathComponent ?? "", database?.deletingLastPathComponent().path ?? "")
        switch (database, photos) {
        case (.some, nil):
            // Translators: %1$@ is a file name, %2$@ its folder.
            return String(format: tr("Your saved pins could not be read, so Virtual Tourist started with an empty list. The damaged file was kept as %1$@ in %2$@."), name, folder)
        case (.some(let database), .some(let photos)) where photos.deletingLastPathComponent() == database.deletingLastPathComponent():
            // Translators: %1$@ is a file name, %2$@ its folder, %3$@ the name of the photos' folder.
            return String(format: tr("Your saved pins could not be read, so Virtual Tourist started with an empty list. The damaged file was kept as %1$@ in %2$@, and its photos as %3$@ in the same folder."),
                          name, folder, photos.lastPathComponent)
        case (.some, .some(let photos)):
            // Translators: %1$@ is a file name, %2$@ its folder; %3$@ is the name of the photos' folder, %4$@ where it is.
            return String(format: tr("Your saved pins could not be read, so Virtual Tourist started with an empty list. The damaged file was kept as %1$@ in %2$@, and its photos as %3$@ in %4$@."),
                          name, folder, photos.lastPathComponent, photos.deletingLastPathComponent().path)
        case (nil, .some(let photos)):
            // Translators: %1$@ is a folder name, %2$@ where it is.
            return String(format: tr("Saved photos were found without the list of pins they belong to. They were kept as %1$@ in %2$@."),
                          photos.lastPathComponent, photos.deletingLastPathComponent().path)
        case (nil, nil):
            return nil
        }
    }

    private func flickrKeyChanged() {
        // The keyring's own words (never the key), once: an edit per keystroke would repeat it.
        if let failure = flickrKey.failure, !keyringFailureLogged {
            keyringFailureLogged = true
            switch flickrKey.place {
            case .file: Log.error("No keyring is available (\(failure.reason)); the Flickr key stays in the settings file")
            case .unreadable: Log.error("The Flickr key could not be read from the keyring: \(failure.reason)")
            default: Log.error("Keyring: \(failure.reason)")
            }
        }
    }

    /// Checks the database file, then fixes photo files and rows left inconsistent by a crash,
    /// off the main thread.
    private func repairInBackground(_ store: Store) {
        Task.detached(priority: .utility) { [weak self] in
            if (try? store.verifyInBackground()) == false {
                Log.error("The database is damaged; it will be repaired on the next start")
                await self?.window?.showError(heading: tr("Saved Data Problem"), body:
                    tr("Part of your saved pins could not be read. Quit and start Virtual Tourist again to repair it; the damaged file will be kept next to the new one."))
                return
            }
            do {
                let result = try store.repair()
                if result.resetRows + result.removedFiles > 0 {
                    Log.info("Repaired album storage: \(result.resetRows) rows to fetch again, \(result.removedFiles) stray files removed")
                }
            } catch {
                Log.error("Album storage repair failed: \(error.localizedDescription)")
            }
        }
    }
}

/// Messages for the terminal and the journal (never containing the API key).
enum Log {
    static func info(_ message: String) { write("virtual-tourist: \(message)\n") }
    static func error(_ message: String) { write("virtual-tourist: error: \(message)\n") }
    private static func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }
}

extension TouristApplication {
    /// The photo source the settings ask for; endpoints can be replaced by `VT_FLICKR_URL`,
    /// `VT_COMMONS_URL` and `VT_PANORAMAX_URL` (tests and offline use point them at the loopback service).
    func makePhotoSource() -> PhotoSource {
        let environment = configuration.environment
        func endpoint(_ name: String, _ fallback: URL) -> URL {
            environment[name].flatMap { $0.isEmpty ? nil : URL(string: $0) } ?? fallback
        }
        let flickrEndpoint = endpoint("VT_FLICKR_URL", FlickrSource.defaultEndpoint)
        // A cell's side at the display's scale; the viewer's width up to a large desktop's.
        let scale = max(1, Int(window?.window.scaleFactor ?? 1))
        let cellPixels = Int(PhotoGrid.cellSize) * scale
        let client = http
        // A key on its way from the keyring: Flickr, once the key is there.
        if flickrKey.place == .reading, settings.source == .automatic || settings.source == .flickr,
           settings.resolvedSource(environment: environment, storedKey: nil).flickrKey == nil {
            return KeyringKeySource(keeper: flickrKey) {
                FlickrSource(apiKey: $0, endpoint: flickrEndpoint, cellPixels: cellPixels, client: client)
            }
        }
        let resolved = settings.resolvedSource(environment: environment, storedKey: flickrKey.key)
        if resolved.id == .flickr {
            guard let key = resolved.flickrKey, !key.isEmpty else {
                return flickrKey.place == .unreadable ? MissingKeySource(message: FlickrKeyKeeper.Place.unreadableMessage) : MissingKeySource()
            }
            return FlickrSource(apiKey: key, endpoint: flickrEndpoint, cellPixels: cellPixels, client: client)
        }
        if resolved.id == .panoramax {
            return PanoramaxSource(endpoint: endpoint("VT_PANORAMAX_URL", PanoramaxSource.defaultEndpoint),
                                   cellPixels: cellPixels, viewerPixels: 1920 * scale, client: client)
        }
        return CommonsSource(endpoint: endpoint("VT_COMMONS_URL", CommonsSource.defaultEndpoint),
                             cellPixels: cellPixels, viewerPixels: 1920 * scale, client: client)
    }
}
