import GtkKit

/// The keys a page or widget handles itself, declared once beside their handlers: each entry is
/// one line of the Keyboard Shortcuts help (its group and text) and the keys that do it. The
/// page installs its table with one controller and `ShortcutsHelp` lists the same table, so a
/// key cannot be handled without its help line (as Loupe binds keys where it installs actions).
/// These keys depend on what has focus (the grid's arrows), or must act once per press
/// (Ctrl+D), so they are not application accelerators (`AppAction` has those).
@MainActor
struct KeyTable<Target: AnyObject> {
    struct Binding {
        /// The key the help shows.
        let key: Key
        /// Keys that act the same and the help does not repeat: keypad twins, the other case
        /// of a letter, "=" on the key that gives "+" with Shift.
        let twins: [Key]
        /// Modifiers that must be held (of Ctrl and Alt; Shift is in the key already).
        let modifiers: Modifiers
        /// Modifiers that may be held or not; any other of Ctrl and Alt makes it not match.
        let ignoring: Modifiers
        /// False when the key was not for it after all (nothing has focus, say): it goes on to
        /// the widgets that would otherwise get it.
        let action: @MainActor (Target) -> Bool

        /// The binding as GTK's accelerator syntax, for the help: "<Control>s".
        var accelerator: String {
            (modifiers.contains(.control) ? "<Control>" : "") + (modifiers.contains(.alt) ? "<Alt>" : "") + key.name
        }

        func matches(_ pressed: Key, _ state: Modifiers) -> Bool {
            (pressed == key || twins.contains(pressed))
                && state.intersection([.control, .alt]).subtracting(ignoring) == modifiers.subtracting(ignoring)
        }
    }

    struct Entry {
        let group: ShortcutsHelp.Group
        let title: String
        let bindings: [Binding]

        /// The help line's keys: every binding's shown key, in order ("Left Right").
        var accelerator: String { bindings.map(\.accelerator).joined(separator: " ") }
    }

    let entries: [Entry]

    init(_ entries: [Entry]) { self.entries = entries }

    /// The action for a key press, if the table has one; true when it was handled.
    func handle(_ key: Key, _ state: Modifiers, for target: Target) -> Bool {
        for entry in entries {
            for binding in entry.bindings where binding.matches(key, state) {
                return binding.action(target)
            }
        }
        return false
    }

    /// Installs the table on `widget` with one key controller (a repeat acts again), acting on
    /// `target` while it lives; `beforeChildren` sees the keys before the focused widget does.
    func install(on widget: Widget, for target: Target, beforeChildren: Bool = false) -> EventController {
        let controller = KeyController()
        if beforeChildren { controller.handleBeforeChildren() }
        // Weak: the widgets outlive their page object while a page slides out.
        controller.onKeyPressed { [weak target] key, state in
            guard let target else { return false }
            return self.handle(key, state, for: target)
        }
        widget.addController(controller)
        return controller
    }

    /// Installs every binding once per press (held keys do not repeat it), wherever focus is in
    /// `widget`: `SinglePressShortcut` matches the key as accelerators do, so twins and
    /// ignored modifiers are not for such a table.
    func installOncePerPress(on widget: Widget, for target: Target) -> [EventController] {
        entries.flatMap(\.bindings).map { binding in
            precondition(binding.twins.isEmpty && binding.ignoring.isEmpty, "once-per-press keys match exactly")
            let shortcut = SinglePressShortcut(key: binding.key, modifiers: binding.modifiers) { [weak target] in
                if let target { _ = binding.action(target) }
            }
            widget.addController(shortcut)
            return shortcut
        }
    }
}

extension KeyTable.Binding {
    /// A binding that always handles its key.
    init(_ key: Key, _ twins: Key..., modifiers: Modifiers = [], ignoring: Modifiers = [],
         _ action: @escaping @MainActor (Target) -> Void) {
        self.init(key: key, twins: twins, modifiers: modifiers, ignoring: ignoring) { target in
            action(target)
            return true
        }
    }

    /// A binding that may decline its key (see `action`).
    static func declinable(_ key: Key, _ twins: Key..., modifiers: Modifiers = [], ignoring: Modifiers = [],
                           _ action: @escaping @MainActor (Target) -> Bool) -> Self {
        Self(key: key, twins: twins, modifiers: modifiers, ignoring: ignoring, action: action)
    }
}

/// A table as the help reads it, whatever page it belongs to.
struct KeyTableLine: Equatable {
    let group: ShortcutsHelp.Group
    let title: String
    let accelerator: String
}

extension KeyTable {
    var lines: [KeyTableLine] {
        entries.map { KeyTableLine(group: $0.group, title: $0.title, accelerator: $0.accelerator) }
    }
}
