package api

import (
	"encoding/json"
	"sync"
	"time"
)

// busBuffer is how many events a subscriber may fall behind before it
// starts losing them.
const busBuffer = 4096

// LaggedEvent is sent to a subscriber that lost events because it fell
// behind; it should reload what it shows.
const LaggedEvent = "bus.lagged"

// Bus fans engine events out to subscribers (the window, SSE clients). A
// slow subscriber never blocks the engine: when its buffer is full it loses
// events and later receives a LaggedEvent. Bus is safe for concurrent use.
type Bus struct {
	mu     sync.Mutex
	subs   map[int]*subscriber
	nextID int
}

type subscriber struct {
	ch     chan Event
	lagged bool
}

// NewBus returns a bus with no subscribers.
func NewBus() *Bus { return &Bus{subs: map[int]*subscriber{}} }

// Publish delivers ev to every subscriber without blocking.
func (b *Bus) Publish(ev Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		if s.lagged {
			lag := Event{Type: LaggedEvent, Time: time.Now(), Data: json.RawMessage(`{}`)}
			select {
			case s.ch <- lag:
				s.lagged = false
			default:
				continue
			}
		}
		select {
		case s.ch <- ev:
		default:
			s.lagged = true
		}
	}
}

// Subscribe returns a channel of events and a function that ends the
// subscription (and closes the channel).
func (b *Bus) Subscribe() (<-chan Event, func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.nextID
	b.nextID++
	s := &subscriber{ch: make(chan Event, busBuffer)}
	b.subs[id] = s
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, id)
			close(s.ch)
			b.mu.Unlock()
		})
	}
}

// Subscribers returns the number of current subscribers.
func (b *Bus) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}
