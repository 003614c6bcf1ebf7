package charges

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// KeyMap holds every key binding of the charges screen. It implements
// help.KeyMap; which bindings the help bar lists depends on whether the
// custom-range input or the type picker is open.
type KeyMap struct {
	Up, Down            key.Binding
	PageUp, PageDown    key.Binding // a screen
	HalfUp, HalfDown    key.Binding // half a screen
	Home, End           key.Binding // End on a partly loaded list keeps loading
	Toggle              key.Binding // expand or collapse the row
	Expand              key.Binding // expand, or step into an open row
	Collapse            key.Binding // collapse, or step out to the parent
	RangeNext           key.Binding // next date range preset
	RangePrev           key.Binding // previous date range preset
	CustomRange         key.Binding // type a range
	Types               key.Binding // open the type picker
	Format              key.Binding // table / tree
	Order               key.Binding // newest / oldest first
	Reload              key.Binding // reload, or retry the failed page
	Find                key.Binding // open the find field
	FindKeep            key.Binding // find field: keep the filter
	FindClear           key.Binding // find field (or rows): clear the filter
	MatchUp, MatchDown  key.Binding // find field: move over the matches
	Info                key.Binding // open the detail pane
	Close               key.Binding // detail pane: close
	Copy                key.Binding // copy the row's source
	Export              key.Binding // export what is shown to a CSV file
	Sort                key.Binding // cycle the order of the entries
	PickInstance        key.Binding // type picker: toggle instance
	PickVolume          key.Binding // type picker: toggle volume
	PickServerless      key.Binding // type picker: toggle serverless
	PickToggle          key.Binding // type picker: toggle the focused type
	PickLeft, PickRight key.Binding // type picker: move the focus
	Apply               key.Binding // input / picker: apply
	Cancel              key.Binding // input / picker: cancel

	mode mode
}

// mode is which part of the screen has the keyboard.
type mode int

const (
	modeTree   mode = iota // navigating rows
	modeInput              // typing a custom range
	modePicker             // picking types
	modeFind               // typing in the find field
	modeDetail             // reading the detail pane
)

// KeyMapOf returns the charges screen's bindings as b binds them (nil: the
// defaults). The keys, labels and help texts come from package keymap's
// one table.
func KeyMapOf(b keymap.Bindings) KeyMap {
	k := func(name string) key.Binding { return shared.Binding(b, name) }
	return KeyMap{
		Up:             k("up"),
		Down:           k("down"),
		PageUp:         k("page-up"),
		PageDown:       k("page-down"),
		HalfUp:         k("half-page-up"),
		HalfDown:       k("half-page-down"),
		Home:           k("top"),
		End:            k("bottom"),
		Toggle:         k("toggle"),
		Expand:         k("expand"),
		Collapse:       k("collapse"),
		RangeNext:      k("range-next"),
		RangePrev:      k("range-prev"),
		CustomRange:    k("custom-range"),
		Types:          k("types"),
		Format:         k("format"),
		Order:          k("order"),
		Reload:         k("reload"),
		Find:           k("search"),
		FindKeep:       k("search-keep"),
		FindClear:      k("search-clear"),
		MatchUp:        k("match-up"),
		MatchDown:      k("match-down"),
		Info:           k("details"),
		Close:          k("close"),
		Copy:           k("copy"),
		Export:         k("export"),
		Sort:           k("sort"),
		PickInstance:   k("pick-instance"),
		PickVolume:     k("pick-volume"),
		PickServerless: k("pick-serverless"),
		PickToggle:     k("pick-toggle"),
		PickLeft:       k("pick-left"),
		PickRight:      k("pick-right"),
		Apply:          k("apply"),
		Cancel:         k("cancel"),
	}
}

// ShortHelp lists the most used bindings of the current mode.
func (k KeyMap) ShortHelp() []key.Binding {
	switch k.mode {
	case modeInput:
		return []key.Binding{k.Apply, k.Cancel}
	case modeFind:
		return []key.Binding{k.FindKeep, k.FindClear, k.MatchUp, k.MatchDown}
	case modeDetail:
		return []key.Binding{k.Close, k.Up, k.Down, k.Copy}
	case modePicker:
		return []key.Binding{k.PickInstance, k.PickVolume, k.PickServerless, k.PickToggle, k.PickLeft, k.Apply, k.Cancel}
	}
	return []key.Binding{k.Up, k.Down, k.Toggle, k.Find, k.Sort, k.Info, k.Copy, k.Export, k.Collapse, k.RangeNext, k.CustomRange, k.Types, k.Format, k.Order, k.Reload}
}

// FullHelp lists every binding of the current mode in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	switch k.mode {
	case modeInput, modePicker, modeFind, modeDetail:
		return [][]key.Binding{k.ShortHelp()}
	}
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Home, k.End},
		{k.Toggle, k.Expand, k.Collapse},
		{k.Find, k.FindClear, k.Sort, k.Info, k.Copy, k.Export},
		{k.RangeNext, k.RangePrev, k.CustomRange, k.Types, k.Format, k.Order, k.Reload},
	}
}

var _ help.KeyMap = KeyMap{}
