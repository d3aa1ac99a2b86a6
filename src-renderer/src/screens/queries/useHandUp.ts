import { useEffect, useRef } from 'react'

/** Give a derived value to the parent whenever its content changes (not on every render). */
export function useHandUp<T>(value: T, onChange: (v: T) => void): void {
  const cb = useRef(onChange)
  cb.current = onChange
  const key = JSON.stringify(value)
  useEffect(() => {
    cb.current(value)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
}
