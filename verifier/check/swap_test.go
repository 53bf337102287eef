package check

import (
	"testing"

	"github.com/toolstream/toolstream/events"
)

// TestASiblingsValueUnderAnotherFieldsNameIsContradicted: a claim that
// names one of two sibling fields of one kind (by a qualifier of its key,
// or by spelling its key near the number) and states the value the other
// one holds is contradicted by the field it names; equality with the
// sibling it does not name is no support. A claim naming neither, or the
// field holding the value, is judged as before.
func TestASiblingsValueUnderAnotherFieldsNameIsContradicted(t *testing.T) {
	const desk = `{"desks": [{"desk": "Harbour Kiosk", "opens_at": "09:30", "closes_at": "17:45"}, {"desk": "Ferry Hall", "opens_at": "07:00", "closes_at": "20:00"}]}`
	const loop = `{"circuits": [{"circuit": "L2", "flow_supply_c": 62.5, "flow_return_c": 48.0}]}`
	const flight = `{"flight": "QX 318", "departure": "2026-08-03T07:10:00+02:00", "arrival": "2026-08-03T09:55:00+02:00"}`
	const squad = `{"squads": [{"squad": "Rovers", "players": 18, "eligible": 15}, {"squad": "Comets", "players": 16, "eligible": 16}]}`
	const crews = `{"crews": [{"crew": "Nightline", "volunteers": 12, "approved": 9}, {"crew": "Dawn Patrol", "volunteers": 8, "approved": 8}]}`
	const pay = `{"员工": [{"姓名": "周敏", "应发工资": 12800, "实发工资": 10460}]}`
	wantVerdicts(t, []verdictCase{
		// a qualifier of the other side: opens, not closes
		{desk, "The Harbour Kiosk closes at 9:30.", events.VerdictContradicted},
		{desk, "The Harbour Kiosk opens at 9:30.", events.VerdictSupported},
		{desk, "The Harbour Kiosk closes at 5:45 pm.", events.VerdictSupported},
		{desk, "The Harbour Kiosk is staffed from 9:30.", events.VerdictSupported},
		{loop, "Circuit L2 returns water at 62.5 °C.", events.VerdictContradicted},
		{loop, "Circuit L2 supplies water at 62.5 °C.", events.VerdictSupported},
		{loop, "On circuit L2 the return is 48 °C.", events.VerdictSupported},
		{loop, "Circuit L2 runs at 62.5 °C.", events.VerdictSupported},
		{flight, "QX 318 arrives at 7:10.", events.VerdictContradicted},
		{flight, "QX 318 departs at 7:10.", events.VerdictSupported},
		{flight, "QX 318航班到达时间是7点10分。", events.VerdictContradicted},
		{flight, "QX 318航班9点55分到达。", events.VerdictSupported},
		// a key spelled near the number: 18 is the players', not the eligible
		{squad, "The Rovers have 18 eligible.", events.VerdictContradicted},
		{squad, "The Rovers have 15 eligible.", events.VerdictSupported},
		{squad, "The Rovers have 18 players, 15 of them eligible.", events.VerdictSupported},
		{squad, "The Comets have 16 eligible.", events.VerdictSupported},
		{crews, "Nightline has 12 approved.", events.VerdictContradicted},
		{crews, "Nightline has 9 approved.", events.VerdictSupported},
		{crews, "Nightline has 12 volunteers, 9 of them approved.", events.VerdictSupported},
		{crews, "Dawn Patrol has 8 approved.", events.VerdictSupported},
		// Chinese qualifiers: 实发 (net) is not 应发 (gross)
		{pay, "周敏的实发工资是12800元。", events.VerdictContradicted},
		{pay, "周敏的应发工资是12800元。", events.VerdictSupported},
		{pay, "周敏的实发工资是10460元。", events.VerdictSupported},
	})
}
