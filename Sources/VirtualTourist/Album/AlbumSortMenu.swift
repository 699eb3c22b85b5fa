import GtkKit
import TouristModel
import Translation

/// The album's "Sort and Filter" menu: its order (as found, nearest, newest, oldest) and the
/// decade it is limited to, as radio items of two actions the album page holds
/// ("album.sort", "album.period"). What is chosen is stored with the pin; the menu shows what
/// the album shows.
@MainActor
final class AlbumSortMenu {
    let button: MenuButton
    private var sort: ChoiceAction!
    private var period: ChoiceAction!
    private var periods: [Int] = [-1]
    /// Called with the user's choice, to store it.
    var onChoose: ((AlbumArrangement) -> Void)?

    private static let allPeriods = "all"

    /// `actions`: the album's group, which gets the menu's two actions.
    init(actions: ActionGroup) {
        button = MenuButton(icon: "view-sort-descending-symbolic", label: tr("Sort and Filter"), sections: [])
        // Weak: the actions belong to the page's widgets, which outlive this object.
        sort = ChoiceAction("sort", in: actions, state: AlbumSort.asFound.rawValue) { [weak self] value in
            guard let self, let chosen = AlbumSort(rawValue: value) else { return }
            self.choose(sort: chosen, period: self.chosenPeriod)
        }
        period = ChoiceAction("period", in: actions, state: Self.allPeriods) { [weak self] value in
            guard let self else { return }
            self.choose(sort: AlbumSort(rawValue: self.sort.state) ?? .asFound, period: Int(value))
        }
        show(AlbumArrangement(), periods: [])
    }

    private var chosenPeriod: Int? { Int(period.state) }

    private func choose(sort: AlbumSort, period: Int?) {
        self.sort.state = sort.rawValue
        self.period.state = period.map(String.init) ?? Self.allPeriods
        onChoose?(AlbumArrangement(sort: sort, period: period))
    }

    /// What the album shows now, and the decades it could be limited to.
    func show(_ arrangement: AlbumArrangement, periods: [Int]) {
        sort.state = arrangement.sort.rawValue
        period.state = arrangement.period.map(String.init) ?? Self.allPeriods
        guard periods != self.periods else { return }
        self.periods = periods
        let orders = AlbumSort.allCases.map { ($0.label, "album.sort::\($0.rawValue)") }
        var sections = [MenuButton.Section(heading: tr("Order"), items: orders)]
        // Only when there is a choice: a single decade limits nothing.
        if periods.count > 1 {
            let decades = periods.map { (AlbumArrangement.periodLabel($0), "album.period::\($0)") }
            sections.append(MenuButton.Section(heading: tr("Taken In"),
                                               items: [(tr("Any Time"), "album.period::\(Self.allPeriods)")] + decades))
        }
        button.setSections(sections)
    }
}
